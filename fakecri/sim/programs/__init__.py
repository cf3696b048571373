"""The programs of the test images, acted out as their sources define them."""
