// Placeholder until image I/O lands.
