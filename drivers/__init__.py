"""Device side of tablehost: transports, pure codecs, device drivers and GPIO."""
