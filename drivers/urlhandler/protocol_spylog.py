"""``spylog://URL#file=LOG``: open ``URL`` and hexdump every byte to ``LOG`` (see :func:`drivers.capture.spy_url`).

pyserial's own ``spy://`` wraps only device paths, and truncates its log each time the port
is opened; this handler wraps whatever class pyserial would use for the inner URL (a
device path, ``socket://``, ``loop://``) and appends, in pyserial's spy hexdump format.
"""

from __future__ import annotations

import datetime
import importlib
from typing import Any

import serial
from serial.urlhandler.protocol_spy import FormatHexdump

from drivers.capture import parse_spy_url

__all__ = ["serial_class_for_url"]


def _handler(url: str) -> tuple[str, type]:
    """The URL and class :func:`serial.serial_for_url` would use for ``url``."""
    if "://" not in url:
        return url, serial.Serial
    scheme = url.split("://", 1)[0].lower()
    for package in serial.protocol_handler_packages:
        try:
            module = importlib.import_module(f".protocol_{scheme}", package)
        except ImportError:
            continue
        if hasattr(module, "serial_class_for_url"):
            return module.serial_class_for_url(url)  # type: ignore[no-any-return]
        return url, module.Serial
    raise ValueError(f"invalid URL, protocol {scheme!r} not known")


def serial_class_for_url(url: str) -> tuple[str, type]:
    """pyserial's hook: the inner URL and a spying subclass of the inner URL's class."""
    try:
        inner, log_path = parse_spy_url(url)
    except ValueError as exc:
        raise serial.SerialException(str(exc)) from None
    inner, base = _handler(inner)

    class Spying(base):  # type: ignore[misc, valid-type]
        """The inner port, with every byte read or written hexdumped to the log."""

        _spy: FormatHexdump | None = None

        def open(self) -> None:
            log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (closed in close())
            stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
            log.write(f"# open {inner} at {stamp}\n")
            self._spy = FormatHexdump(log, False)
            try:
                super().open()
            except BaseException:
                log.close()
                raise

        def read(self, size: int = 1) -> bytes:
            data: bytes = super().read(size)
            if data and self._spy is not None:
                self._spy.rx(data)
            return data

        def write(self, data: Any) -> int | None:
            if self._spy is not None:
                self._spy.tx(bytes(data))
            return super().write(data)  # type: ignore[no-any-return]

        def close(self) -> None:
            super().close()
            spy, self._spy = self._spy, None
            if spy is not None:
                spy.output.write("# closed\n")
                spy.output.close()

    return inner, Spying
