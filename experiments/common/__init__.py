"""What the commands of ``experiments`` share: settings, the results file, statistics, reports."""
