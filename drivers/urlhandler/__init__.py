"""pyserial URL handlers of tablehost: ``spylog://`` and a ``socket://`` that keeps input.

Importing this package registers it with pyserial *ahead* of pyserial's own handlers, so
``socket://`` URLs open :class:`drivers.urlhandler.protocol_socket.Serial`.
"""

import serial

#: This package, as pyserial's handler search names it.
HANDLER_PACKAGE = "drivers.urlhandler"

if HANDLER_PACKAGE not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.insert(0, HANDLER_PACKAGE)
