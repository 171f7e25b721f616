"""Capture stage: load a model file, run it warmed up under torch.profiler, write the trace.

This is the only stage that imports torch or touches a GPU.
"""
