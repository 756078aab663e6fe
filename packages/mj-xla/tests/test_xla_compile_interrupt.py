"""Ctrl-C while XLA compiles (issue 24): jaxlib raised KeyboardInterrupt at once and left its
compile thread running, and the process could segfault at exit. The compile now finishes
first; the interrupt is raised right after it, through the handler the program had."""

import os
import signal

import pytest

from mj_xla import _jaxlib


class _InterruptedClient:
    """A client whose compile receives SIGINT half-way and then keeps working."""

    def __init__(self):
        self.finished = False

    def compile_and_load(self, module, devices, options, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # bytecodes: where Python runs the handler of a pending signal
            pass
        self.finished = True
        return "executable"


def test_an_interrupt_during_a_compile_is_raised_after_it():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        client = _InterruptedClient()
        with pytest.raises(KeyboardInterrupt):
            _jaxlib._compile(client, None, None, None, ())
        assert client.finished
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_custom_handler_still_gets_the_interrupt():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        client = _InterruptedClient()
        assert _jaxlib._compile(client, None, None, None, ()) == "executable"
        assert client.finished
        assert seen == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_compile_without_interrupt_returns_its_executable():
    class Client:
        def compile_and_load(self, module, devices, options, **kwargs):
            return ("exe", kwargs)

    assert _jaxlib._compile(Client(), None, None, None, ()) == ("exe", {})
    assert _jaxlib._compile(Client(), None, None, None, [print]) == (
        "exe",
        {"host_callbacks": [print]},
    )
