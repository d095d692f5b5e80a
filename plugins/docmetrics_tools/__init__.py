"""First-party tool plugins: subcommands of ``docmetrics`` (entry-point group ``docmetrics.tools``)."""
