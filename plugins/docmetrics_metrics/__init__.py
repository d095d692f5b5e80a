"""First-party metric plugins (entry-point group ``docmetrics.metrics``); one subpackage each."""
