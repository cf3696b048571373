"""The host: files, mounts, log files, listeners, the network, sockets and locks."""
