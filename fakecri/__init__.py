"""fakecri: a fake Kubernetes CRI runtime for conformance and fault testing."""

__version__ = "0.1.0"

__all__ = ["__version__"]
