"""Subcommands of the hupai console command, one module each."""
