"""``mj.profiler``: traces for TensorBoard/XProf and device memory profiles, as
``jax.profiler`` (see ``mj_xla.profiler``)."""

from mj_xla import profiler as _profiler

ProfileOptions = _profiler.ProfileOptions
StepTraceAnnotation = _profiler.StepTraceAnnotation
TraceAnnotation = _profiler.TraceAnnotation
annotate_function = _profiler.annotate_function
device_memory_profile = _profiler.device_memory_profile
save_device_memory_profile = _profiler.save_device_memory_profile
start_server = _profiler.start_server
start_trace = _profiler.start_trace
stop_server = _profiler.stop_server
stop_trace = _profiler.stop_trace
trace = _profiler.trace

__all__ = [
    "ProfileOptions",
    "StepTraceAnnotation",
    "TraceAnnotation",
    "annotate_function",
    "device_memory_profile",
    "save_device_memory_profile",
    "start_server",
    "start_trace",
    "stop_server",
    "stop_trace",
    "trace",
]
