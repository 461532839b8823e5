"""Language models as players and as solvers of the reasoning benchmark, through a chat endpoint."""
