"""hupai."""
