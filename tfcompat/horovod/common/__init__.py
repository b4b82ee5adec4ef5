"""Horovod's framework-independent basics (`horovod.common`)."""
