"""The ``tablehost`` command line.

Commands are listed in tables of ``(name, help, target)`` (:data:`GROUPS`, and a group's own
table for its sub-commands, see :func:`register_all`), where ``target`` is ``"module"`` or
``"module:function"``; the function (``register`` by default) is called as
``function(subparsers, name, help_text)`` and adds the command's parser. A command's module is
imported only when the command is invoked: ``tablehost --help`` lists the commands from the
tables alone, so it imports none of serial, usb, gpiozero, the simulators, the wiring or the
host. Every sub-command sets ``func`` (``args -> exit status``). Errors derived from the
package roots (:data:`ERROR_ROOTS`) become one line on stderr and exit status 2 (75 for a
:class:`~firmware_host.errors.TemporaryError`, one that may pass by itself); ``tablehost``
with no command prints this help on stdout and also exits 2 (no command ran). A reader that
closes standard output early (``| head -1``) ends any command quietly with status 141
(:mod:`firmware_host.cli.pipes`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from firmware_host import __version__

#: What ``tablehost --help`` says the program is.
DESCRIPTION = "tablehost: the table-side controller for casino table hardware (shoe, dice shaker, shuffler, GPIO)"

#: (group name, help, module with ``register``), in the order ``--help`` lists them.
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("run", "run the table service", "firmware_host.cli.run"),
    ("baccarat", "Baccarat rules: resolve rounds, exact odds", "firmware_host.cli.baccarat"),
    ("paigow", "Pai Gow rules: starting position, delivery, tiles", "firmware_host.cli.paigow"),
    ("journal", "verify and export the journal", "firmware_host.cli.journal"),
    ("floor", "collect every table's floor feed; status, export", "firmware_host.cli.floor"),
    ("feed", "the floor feed's signing keys (keygen)", "firmware_host.cli.feed"),
    ("sim", "run a simulated device standalone", "firmware_host.cli.sim"),
    ("devices", "list the serial and USB devices this machine can see", "firmware_host.cli.devices"),
    ("capture", "record raw device traffic", "firmware_host.cli.capture"),
    ("display", "the web display's PIN files", "firmware_host.cli.display"),
)

#: Exit status of a deliberate error, and of ``tablehost`` without a command (after the help):
#: argparse's status for a usage error.
EXIT_ERROR = 2

#: The roots of deliberate errors, as (module, class). Only roots whose module is already
#: imported are caught: an error class of a module never imported cannot have been raised,
#: and looking the others up would import them (``sim`` into ``tablehost baccarat odds``).
ERROR_ROOTS: tuple[tuple[str, str], ...] = (
    ("firmware_host.errors", "TablehostError"),
    ("drivers.errors", "DriverError"),
    ("sim.errors", "SimError"),
)

#: The ``register`` of a command: ``(subparsers, name, help_text) -> None``.
Register = Callable[[Any, str, str], None]


def resolve_target(target: str) -> Register:
    """The function named by ``"module"`` (its ``register``) or ``"module:function"``, importing the module."""
    module_name, _, function = target.partition(":")
    return getattr(importlib.import_module(module_name), function or "register")  # type: ignore[no-any-return]


class LazyCommands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Sub-commands that are placeholders until chosen.

    :meth:`add_lazy` adds a placeholder parser carrying only the name and help (which is all
    ``--help`` and argparse's choice check need). When the command line chooses it, the
    target is imported and registers the real parser in the placeholder's place, at the same
    position in the help listing. Plain :meth:`add_parser` works as usual.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: dict[str, tuple[str, str]] = {}

    def add_lazy(self, name: str, help_text: str, target: str) -> None:
        """Add ``name`` with ``help_text``; import ``target`` only if ``name`` is invoked."""
        self.add_parser(name, help=help_text)
        self._pending[name] = (help_text, target)

    def load(self, name: str) -> argparse.ArgumentParser:
        """The real parser of ``name``, registering it from its target on first use."""
        if name in self._pending:
            help_text, target = self._pending.pop(name)
            position = next(i for i, choice in enumerate(self._choices_actions) if choice.dest == name)
            del self._choices_actions[position]
            del self._name_parser_map[name]
            resolve_target(target)(self, name, help_text)
            self._choices_actions.insert(position, self._choices_actions.pop())
        return self._name_parser_map[name]  # type: ignore[no-any-return]

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        self.load(values[0])  # argparse has checked that values[0] is one of the choices
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose sub-parsers (and theirs) are :class:`LazyCommands`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", LazyCommands)

    def error(self, message: str) -> NoReturn:
        """A usage error: one line on stderr naming the argument and why, and exit status 2
        (argparse would print the usage first; ``--help`` shows it)."""
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def register_all(subparsers: Any, entries: Sequence[tuple[str, str, str]]) -> None:
    """Add each ``(name, help, target)`` entry to ``subparsers``.

    Into :class:`LazyCommands` (every parser built by :func:`build_parser`) a target is
    imported when its command is invoked; into plain :mod:`argparse` sub-parsers, now.
    """
    for name, help_text, target in entries:
        if isinstance(subparsers, LazyCommands):
            subparsers.add_lazy(name, help_text, target)
        else:
            resolve_target(target)(subparsers, name, help_text)


def build_parser() -> argparse.ArgumentParser:
    """The full ``tablehost`` parser (each command's own parser is built when it is invoked)."""
    parser = Parser(prog="tablehost", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    register_all(parser.add_subparsers(dest="group", metavar="COMMAND"), GROUPS)
    return parser


def _loaded_error_roots() -> tuple[type[BaseException], ...]:
    """The :data:`ERROR_ROOTS` whose modules are imported (evaluated when an exception is matched)."""
    return tuple(getattr(sys.modules[module], name) for module, name in ERROR_ROOTS if module in sys.modules)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tablehost`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.group is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # here, not at exit, where a reader gone would be a complaint of the interpreter's
        return status
    except _loaded_error_roots() as exc:
        print(f"tablehost: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_status", EXIT_ERROR))  # 75 for a TemporaryError
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`tablehost journal export ... | head -1`): not an error of ours.
        from firmware_host.cli import pipes

        if not pipes.closed_stdout():
            raise  # a device's or a socket's, not standard output's
        return pipes.reader_gone()


if __name__ == "__main__":
    sys.exit(main())
