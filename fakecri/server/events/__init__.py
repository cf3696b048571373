"""Container events on their way out: encoded once (encoder), fanned out (bus), written to
each GetContainerEvents stream with its faults (delivery). The status cache serves both the
events and PodSandboxStatus/ContainerStatus, so an event and a status call agree byte for byte."""
