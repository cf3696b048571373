"""The process that serves: the gRPC servers of one node or a farm, and the services beside them."""
