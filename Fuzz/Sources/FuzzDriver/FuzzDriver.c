// Header-only target: see include/FuzzDriver.h.
