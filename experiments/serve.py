"""Play Cluedo in a browser against agents: start the web app and open the address it prints.

    python -m experiments.serve                      # http://127.0.0.1:8000/
    python -m experiments.serve --port 8080 --replays results/web
    python -m experiments.serve --results results/web-games  # games join tournament results as 'human'
    cluedo-serve --host 0.0.0.0                      # the same, installed; reachable from other machines

The page (``experiments/web``) deals a game with you at the seat you pick and agents at the
others (default three ``sat`` agents), draws the board, your cards, each player's hand size, what
you saw happen and your legal moves as buttons. Each finished game is saved as a replay
(``cluedo_env.replay``'s format) in ``--replays``, where uploaded replays are kept too. The
server sends the page only what your seat may know (``experiments/web/session.py``). Needs the
web extra: ``pip install -e ".[web]"``.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
from pathlib import Path
from urllib.parse import urlsplit

from cluedo_env import __version__
from cluedo_env.console import replace_unencodable
from experiments.common.extras import missing_extra
from experiments.common.folder_lock import unwritable

__all__ = ["LOOPBACK", "loopback_only", "main"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")  # this machine's names, which a page opened here sends as Host


def loopback_only(host: str) -> bool:
    """Whether ``--host`` binds this machine only: a loopback address (``127.0.1.1``,
    ``0:0:0:0:0:0:0:1``), or a name every address of which is one (``localhost``)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name
        pass
    try:
        found = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):  # a name that does not resolve (uvicorn then says so)
        return False
    return bool(found) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in found)


def main(argv: list[str] | None = None) -> None:
    """Start the web app on ``--host``:``--port`` (127.0.0.1:8000 by default) and print its address."""
    replace_unencodable()
    title, _, rest = __doc__.partition("\n")
    parser = argparse.ArgumentParser(
        description=f"{title} (cluedo-env {__version__})\n{rest}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--replays", default="results/web", help="folder for finished games' replays")
    parser.add_argument(
        "--results",
        help="folder whose games.jsonl each finished game joins as a tournament game record, you as the "
        "agent 'human' (report it with python -m experiments.common.stats FOLDER)",
    )
    parser.add_argument(
        "--origin",
        action="append",
        default=[],
        metavar="URL",
        help="an address people open the page at other than this server's own, such as a reverse proxy's "
        "(https://cluedo.example.org); its pages may play (repeatable)",
    )
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:  # (0, "any free port", would leave the address to print unknown)
        parser.error(f"--port must be in [1, 65536), got {args.port}")
    if args.results is not None and Path(args.results).resolve() == Path(args.replays).resolve():
        parser.error("--results must be another folder than --replays (its games.jsonl is no replay)")
    for option, folder in (("--replays", args.replays), ("--results", args.results)):
        problem = folder is not None and unwritable(folder)
        if problem:  # found now, not when a person's game ends and cannot be saved
            parser.error(f"{option} {folder}: {problem}")
    try:
        import uvicorn

        from experiments.web.app import create_app, left_unfinished
    except ModuleNotFoundError as error:  # fastapi and uvicorn come with the web extra
        raise missing_extra(error, command=__name__ == "__main__") from None
    origins = []
    for given in args.origin:  # as a browser writes an Origin: scheme://host[:port], no default port
        try:
            url = urlsplit(given)
            port = url.port
        except ValueError:
            url, port = None, None
        if (
            url is None
            or url.scheme not in ("http", "https")
            or not url.hostname
            or url.path not in ("", "/")
        ):
            parser.error(f"--origin must be an address such as https://cluedo.example.org, got {given!r}")
        default = {"http": 80, "https": 443}[url.scheme]
        host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
        origins.append(f"{url.scheme}://{host}" + (f":{port}" if port not in (None, default) else ""))
    # On this machine only: a page of another name that resolves here (DNS rebinding) is refused.
    hosts = None
    if loopback_only(args.host):
        hosts = [*LOOPBACK, args.host, *(urlsplit(o).hostname for o in origins)]
        if ":" in args.host:  # an IPv6 address as a browser writes it ([0:0::1] -> [::1])
            hosts.append(ipaddress.ip_address(args.host).compressed)
    app = create_app(args.replays, results_dir=args.results, hosts=hosts, origins=origins)
    host = f"[{args.host}]" if ":" in args.host else args.host  # an IPv6 address in a URL is bracketed
    print(f"Cluedo: open http://{host}:{args.port}/ in a browser (Ctrl-C stops the server)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    left = left_unfinished(app)
    if left:  # (a game left unfinished has no result to write: it is not in --results)
        print(f"Cluedo: {left} game(s) left unfinished: not saved as replays, nor in --results", flush=True)


if __name__ == "__main__":
    main()
