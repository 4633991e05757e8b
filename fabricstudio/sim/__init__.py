"""Traffic simulation of the fabric (Qt-free)."""
