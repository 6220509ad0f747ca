"""pyserial URL handlers of tablehost (registered by :mod:`drivers.capture`): ``spylog://``."""
