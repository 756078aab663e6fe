"""``jit(...).lower(...)`` / ``.compile(...)``: the stage API of JAX's ``jax.stages`` that
JAX's own tests use (``in_avals``, ``args_info``, ``out_info``, ``in_tree``,
``as_text(dialect=)``, ``compiler_ir``, ``cost_analysis``, ``memory_analysis``,
``runtime_executable``, ``compiler_options=``, the compiled call's argument checks),
compared with real JAX."""

import jax
import numpy as np
import pytest

import mj


def _avals_str(tree):
    return str(jax.tree.map(lambda a: (a.shape, str(a.dtype), a.weak_type), tree))


@pytest.mark.parametrize("donate", [(), (0,), (1,)], ids=["none", "donate0", "donate1"])
def test_signature_of_lowered_and_compiled_as_jax(x64, donate):
    def f(x, y):
        return {"s": x * 2 + y["b"]}, y["a"].sum()

    x = np.ones(3, np.float32)
    y = {"a": np.arange(4.0), "b": 1.5}
    lowered_j = jax.jit(f, donate_argnums=donate).lower(x, y)
    lowered_m = mj.jit(f, donate_argnums=donate).lower(x, y)
    for stage_j, stage_m in [(lowered_j, lowered_m), (lowered_j.compile(), lowered_m.compile())]:
        assert _avals_str(stage_m.in_avals) == _avals_str(stage_j.in_avals)
        got = jax.tree.map(lambda i: (i.shape, str(i.dtype), i.donated), stage_m.args_info)
        want = jax.tree.map(lambda i: (i.shape, str(i.dtype), i.donated), stage_j.args_info)
        assert got == want
        assert str(stage_m.in_tree) == str(stage_j.in_tree)
        out_m = jax.tree.map(lambda o: (o.shape, str(o.dtype)), stage_m.out_info)
        out_j = jax.tree.map(lambda o: (o.shape, str(o.dtype)), stage_j.out_info)
        assert out_m == out_j
    assert lowered_m.donate_argnums == lowered_j.donate_argnums


def test_kwargs_and_static_arguments_in_args_info():
    def f(a, n, *, b):
        return a * n + b

    for lib in (jax, mj):
        lowered = lib.jit(f, static_argnums=1, donate_argnames="b").lower(1.0, 3, b=np.ones(2))
        args, kwargs = lowered.args_info
        assert len(args) == 1
        assert not args[0].donated
        assert kwargs["b"].donated
        assert kwargs["b"].shape == (2,)


def test_as_text_and_compiler_ir_dialects():
    lowered = mj.jit(lambda x: x + 4).lower(1.0)
    stablehlo = lowered.as_text()
    assert stablehlo == lowered.as_text(dialect="stablehlo") == lowered.as_text("stablehlo")
    assert "stablehlo.add" in stablehlo
    hlo = lowered.as_text(dialect="hlo")
    assert hlo.startswith("HloModule")
    assert " add(" in hlo
    assert str(lowered.compiler_ir()) == stablehlo
    assert lowered.compiler_ir(dialect="hlo").as_hlo_text() == hlo
    with pytest.raises(ValueError, match="unknown dialect: mhlo"):
        lowered.as_text(dialect="mhlo")


def test_cost_and_memory_analysis_as_jax():
    def f(x):
        return x @ x + 1.0

    x = np.ones((8, 8), np.float32)
    lowered_j, lowered_m = jax.jit(f).lower(x), mj.jit(f).lower(x)
    assert lowered_m.cost_analysis()["flops"] == lowered_j.cost_analysis()["flops"]
    compiled_j, compiled_m = lowered_j.compile(), lowered_m.compile()
    assert compiled_m.cost_analysis()["flops"] == compiled_j.cost_analysis()["flops"]
    mem_j, mem_m = compiled_j.memory_analysis(), compiled_m.memory_analysis()
    assert mem_m.argument_size_in_bytes == mem_j.argument_size_in_bytes == 256
    assert mem_m.output_size_in_bytes == mem_j.output_size_in_bytes
    exe = compiled_m.runtime_executable()
    assert type(exe).__name__ == type(compiled_j.runtime_executable()).__name__
    assert exe.hlo_modules()


def test_compiler_options_reach_xla():
    def f(x):
        return abs(x) + 1.0

    lowered = mj.jit(f).lower(1.0)
    options = {"xla_embed_ir_in_executable": True, "xla_dump_max_hlo_modules": 200}
    assert lowered.compile(compiler_options=options)(2.0) == 3.0
    assert mj.jit(f, compiler_options={"exec_time_optimization_effort": 0.0})(2.0) == 3.0
    for lib, lo in ((jax, jax.jit(f).lower(1.0)), (mj, lowered)):
        with pytest.raises(lib.errors.JaxRuntimeError, match="No such compile option: 'bad'"):
            lo.compile(compiler_options={"bad": 1})
        with pytest.raises(lib.errors.JaxRuntimeError, match="is not a valid bool value"):
            lo.compile(compiler_options={"xla_embed_ir_in_executable": "maybe"})
    with pytest.raises(mj.errors.JaxRuntimeError, match="No such compile option"):
        mj.jit(f, compiler_options={"exec_time_compilation_effort": 0.0})(1.0)
    assert mj.jit(f)(2.0) == 3.0  # the options stay with their jit


def test_compiled_call_checks_arguments_as_jax():
    def f(x):
        return x * 2

    for lib in (jax, mj):
        compiled = lib.jit(f).lower(np.float32(1)).compile()
        with pytest.raises(TypeError, match="Function compiled with input pytree does not match"):
            compiled([1.0])
        with pytest.raises(
            TypeError,
            match=r"Argument types differ .*The mismatches are:\n"
            r"Argument 'x' compiled with float32\[\] and called with int32\[\]",
        ):
            compiled(np.int32(1))
        with pytest.raises(TypeError, match="Cannot apply JAX transformations to a function "):
            lib.vmap(compiled)(np.ones(3, np.float32))


def test_jit_accepts_none_for_static_and_donated_arguments():
    def f(x):
        return x + 1

    for lib in (jax, mj):
        g = lib.jit(f, static_argnums=None, static_argnames=None, donate_argnums=None)
        assert float(g(1.0)) == 2.0
