"""Graphics items for devices and links."""
