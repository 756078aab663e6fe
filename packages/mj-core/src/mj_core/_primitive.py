"""Primitives and the two rule tables mj-core owns.

A :class:`Primitive` is only a name (plus whether it returns several outputs). What a primitive
*means* lives in rule tables, one per interpretation, each owned by the layer that owns that
interpretation: ``impl_rules`` (eager evaluation) and ``abstract_eval_rules`` (typing) here,
``jvp_rules`` in mj-autodiff, and so on. A table is a :class:`RuleTable`: a plain dict whose
failed lookup raises :class:`~mj_core.errors.MissingRuleError` naming the primitive, the
transformation and where to register the rule. A table that not every primitive needs an
entry in is an *optional hook*: the same class, given the ``default`` behaviour of a primitive
without an entry.

The typing table lives here, next to the impl table, because each core family writes its
typing rule once, beside its impl rule (``mj_core/prims/<family>.py``), and the impl rules check
their operands with it: eager evaluation and jaxprs can never disagree. mj-ir exposes this same
dict as ``mj_ir.abstract_eval_rules``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from mj_core._config import config, on_change
from mj_core.errors import MissingRuleError

__all__ = [
    "ImplRules",
    "Primitive",
    "RuleTable",
    "UfuncShortcut",
    "abstract_eval_rules",
    "effectful_primitives",
    "impl_rules",
    "install_binders",
]

_R = TypeVar("_R")  # what a table holds per primitive: a rule, or a description of one


class Primitive:
    """A named operation; its meaning is given by the rule tables it is registered in.

    JAX's object model on the same object: ``prim.bind(*args, **params)`` applies it (one
    output, or the list of outputs when ``multiple_results``; mj's own code calls the function
    ``mj_core.bind(prim, ...)``, which always returns a list), and ``def_impl`` /
    ``def_abstract_eval`` register JAX-convention rules into :data:`impl_rules` /
    :data:`abstract_eval_rules`.
    """

    __slots__ = ("multiple_results", "name")

    def __init__(self, name: str, *, multiple_results: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results

    @property
    def impl(self) -> Callable[..., Any]:
        """JAX's ``Primitive.impl``: the function :meth:`def_impl` registered (itself, as
        JAX keeps it); otherwise, for a primitive with an eager rule (mj's own), evaluating
        it now with that rule (JAX's ``apply_primitive``), and for one with none, a function
        raising JAX's ``NotImplementedError``. The table holds the registered function (as
        the rule's ``__wrapped__``), not the primitive."""
        rule = impl_rules.get(self)
        if rule is None:
            return self._no_impl
        registered: Callable[..., Any] | None = getattr(rule, "__wrapped__", None)
        return registered or _Evaluation(self, rule)

    @impl.setter
    def impl(self, impl: Callable[..., Any]) -> None:
        self.def_impl(impl)

    def _no_impl(self, *args: object, **params: object) -> Any:
        raise NotImplementedError(f"Evaluation rule for '{self.name}' not implemented")

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args: object, **params: object) -> Any:
        """Apply the primitive to ``args`` under the current transformations (JAX's
        ``Primitive.bind``): its output, or the list of its outputs when
        ``multiple_results``."""
        if self.multiple_results:
            return _BINDERS[0](self, *args, **params)
        return _BINDERS[1](self, *args, **params)

    def get_bind_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """JAX's params for re-binding an equation of this primitive (what
        ``jax.core.eval_jaxpr`` passes to ``bind``): mj's params already are."""
        return params

    def def_impl(self, impl: Callable[..., Any]) -> Callable[..., Any]:
        """Register ``impl(*args, **params)`` (returning the output, or a sequence of outputs
        when ``multiple_results``, as in JAX) as the primitive's eager evaluation rule."""
        if isinstance(impl, _Evaluation) and impl.primitive is self:
            impl_rules[self] = impl.rule  # the impl read earlier, put back
            return impl
        multiple = self.multiple_results

        def rule(*args: object, **params: object) -> list[Any]:
            out = impl(*args, **params)
            return list(out) if multiple else [out]

        rule.__name__ = rule.__qualname__ = f"{self.name}_impl"
        rule.__wrapped__ = impl  # type: ignore[attr-defined]  # (read back by ``impl``)
        impl_rules[self] = rule
        return impl

    def def_abstract_eval(self, abstract_eval: Callable[..., Any]) -> Callable[..., Any]:
        """Register ``abstract_eval(*avals, **params)`` (returning the output's aval, or a
        sequence of avals when ``multiple_results``, as in JAX) as the primitive's typing
        rule."""
        multiple = self.multiple_results

        def rule(*avals: object, **params: object) -> list[Any]:
            out = abstract_eval(*avals, **params)
            return list(out) if multiple else [out]

        rule.__name__ = rule.__qualname__ = f"{self.name}_abstract_eval"
        abstract_eval_rules[self] = rule
        return abstract_eval


# ``Primitive.bind``'s implementations, installed by the package once the interpreter stack
# (``mj_core._trace``, a layer above this module) is imported: ``bind`` (a list of outputs)
# and ``bind1`` (the single output); and the eager engine's evaluation (``eval_primitive``).
_BINDERS: list[Callable[..., Any]] = []
_EVALUATE: list[Callable[..., list[Any]]] = []


def install_binders(
    bind: Callable[..., Any], bind1: Callable[..., Any], evaluate: Callable[..., list[Any]]
) -> None:
    """Make ``Primitive.bind`` call ``bind`` (multiple results) and ``bind1`` (one result),
    and ``Primitive.impl`` evaluate with ``evaluate(primitive, args, params, rule)``."""
    _BINDERS[:] = [bind, bind1]
    _EVALUATE[:] = [evaluate]


class _Evaluation:
    """JAX's ``Primitive.impl`` of a primitive with mj's own eager rule: the primitive
    evaluated now with the rule it had when ``impl`` was read (JAX's ``apply_primitive``). A
    function registered later with ``def_impl`` may call it (JAX's tests wrap an impl so),
    and ``def_impl`` of it puts that rule back."""

    __slots__ = ("primitive", "rule")

    def __init__(self, primitive: Primitive, rule: Callable[..., list[Any]]) -> None:
        self.primitive = primitive
        self.rule = rule

    def __call__(self, *args: object, **params: object) -> Any:
        outs = _EVALUATE[0](self.primitive, args, params, self.rule)
        return outs if self.primitive.multiple_results else outs[0]


class RuleTable(dict[Primitive, _R]):
    """A ``dict[Primitive, rule]`` of one interpretation whose missing entries raise a helpful
    error: :class:`~mj_core.errors.MissingRuleError` naming the primitive, the transformation
    and where to register the rule.

    Every table keyed by primitive, in every layer, is a ``RuleTable``, of one of two kinds:

    * a **required** table (``default=None``: ``impl_rules``, ``abstract_eval_rules``,
      ``jvp_rules``, ``vmap_rules``, ``lowering_rules``, ...): every primitive that reaches the
      interpretation needs a rule, and the interpreter looks it up with ``table[p]``;
    * an **optional hook** (``default`` says what happens without an entry: ``pp_rules``,
      ``vma_rules``, ``derivative_kinds``, ...): the interpreter looks it up with
      ``table.get(p)`` and does the default where there is none; ``table[p]`` of a missing
      entry still raises the error, which says the entry is optional and what its default is.

    ``where`` replaces ``module.name[p_p]`` in the error where entries are registered by a
    function rather than by assignment.
    """

    def __init__(
        self,
        name: str,
        transformation: str,
        module: str,
        *,
        default: str | None = None,
        where: str | None = None,
    ) -> None:
        super().__init__()
        self.name = name
        self.transformation = transformation
        self.module = module
        self.default = default
        self.where = where

    @property
    def optional(self) -> bool:
        """Whether the table is an optional hook (a primitive without an entry gets the
        :attr:`default` behaviour) rather than a table every primitive needs a rule in."""
        return self.default is not None

    def __missing__(self, prim: Primitive) -> _R:
        where = (
            self.where.format(prim=prim.name)
            if self.where is not None
            else f"{self.module}.{self.name}[{prim.name}_p]"
        )
        if self.default is None:
            raise MissingRuleError(
                f"Primitive '{prim}' has no {self.transformation} rule: register one in {where}."
            )
        raise MissingRuleError(
            f"Primitive '{prim}' has no {self.transformation} entry, an optional hook "
            f"(without one: {self.default}); register one in {where}."
        )

    def __repr__(self) -> str:
        optional = ", optional" if self.optional else ""
        return f"RuleTable({self.module}.{self.name}, {len(self)} rules{optional})"

    def register(self, prim: Primitive) -> Callable[[_R], _R]:
        """Decorator form: ``@impl_rules.register(sin_p)`` above the rule's definition."""

        def decorate(rule: _R) -> _R:
            self[prim] = rule
            return rule

        return decorate


class UfuncShortcut:
    """The eager shortcut of ``primitive`` (see :class:`ImplRules`): ``ufunc`` is its impl
    rule's computation returning the output itself, or ``None`` while another impl rule is
    registered."""

    __slots__ = (
        "accepted",
        "accepts",
        "computes",
        "inexact_kinds",
        "inexact_only",
        "keeps_dtype",
        "kinds",
        "primitive",
        "refused",
        "ufunc",
    )

    def __init__(self, primitive: Primitive) -> None:
        self.primitive = primitive
        self.ufunc: Callable[..., Any] | None = None
        # A float-valued op: its shortcut holds only for float or complex operands (NumPy
        # computes ``sin(int8)`` in float16, JAX in float32).
        self.inexact_only = False
        # The kinds of operands a float-valued op's ``ufunc`` computes as its impl rule does:
        # "f" where complex operands take the rule's own computation (XLA's complex kernels),
        # decided once per primitive, so a float operand pays no complex check.
        self.inexact_kinds = "fc"
        self.keeps_dtype = False  # the output has the (common) dtype of the operands
        # The dtype kinds its typing rule accepts, which the impl rule checks where it converts
        # a Python scalar operand (the shortcut must not accept one it refuses).
        self.kinds = "biufc"
        # Whether the primitive's typing rule accepts operands of one dtype (all of them of
        # it): the typing rule's decision, asked once per dtype and kept in ``accepted``
        # (:meth:`accepts_dtype`), so eager operations check what ``jit`` checks at the
        # price of a set lookup (~20 ns; a dtype is found by identity).
        self.accepts: Callable[[np.dtype[Any]], bool] = _accepts_any
        self.accepted: set[np.dtype[Any]] = set()
        # The dtypes whose operands the shortcut computes as the impl rule would: accepted,
        # and float or complex for a float-valued primitive (``computes_dtype``).
        self.computes: set[np.dtype[Any]] = set()
        # The dtypes it does not compute (``mnp.sin`` of int32 takes the NumPy-level path,
        # which converts, on every call: the typing rule is asked once, not each time).
        self.refused: set[np.dtype[Any]] = set()

    def accepts_dtype(self, dtype: np.dtype[Any]) -> bool:
        """Whether the typing rule accepts operands of ``dtype`` (asked once per accepted
        dtype; a refused one is refused again by the error it raises)."""
        if dtype in self.accepted:
            return True
        ok = self.accepts(dtype)
        if ok:
            self.accepted.add(dtype)
        return ok

    def computes_dtype(self, dtype: np.dtype[Any]) -> bool:
        """Whether the shortcut computes operands of ``dtype`` (kept in ``computes``)."""
        if dtype in self.computes:
            return True
        if dtype in self.refused:
            return False
        ok = self.accepts_dtype(dtype) and (
            not self.inexact_only or dtype.kind in self.inexact_kinds
        )
        (self.computes if ok else self.refused).add(dtype)
        return ok


def _accepts_any(dtype: np.dtype[Any]) -> bool:
    return True


class ImplRules(RuleTable[Callable[..., Any]]):
    """The impl table, with the eager shortcut of the primitives that are one NumPy ufunc.

    A primitive whose impl rule only applies a ufunc-like function to its operands (the
    elementwise family's) is registered with :meth:`register_ufunc`; that function, which
    returns the output itself rather than a one-element list, is its :meth:`shortcut`, and the
    lax wrappers made by :func:`mj_core._eager.wrappers.binds` call it directly (eager
    NumPy-style code runs these operations most). Registering another impl rule for the
    primitive clears its shortcut, so the new rule is what eager evaluation runs.
    """

    def __init__(self) -> None:
        super().__init__("impl_rules", "eager evaluation (impl)", "mj_core")
        # An optional hook: a primitive without a shortcut (or whose shortcut's ``ufunc`` is
        # ``None``) is evaluated by its impl rule.
        self._shortcuts: RuleTable[UfuncShortcut] = RuleTable(
            "shortcuts",
            "eager ufunc shortcut",
            "mj_core.impl_rules",
            default="the eager wrappers call its impl rule",
            where="mj_core.impl_rules.register_ufunc({prim}_p, nin, ufunc)",
        )
        self._suspended: dict[Primitive, Callable[..., Any]] = {}
        #: The primitives whose impl rule is mj-core's own NumPy computation (its
        #: ``mj_core.prims`` families' and :meth:`register_ufunc`'s rules): eager evaluation
        #: gives them plain NumPy views of ``EagerArray`` operands, which NumPy's functions
        #: take at NumPy's speed (an ``EagerArray`` goes through its Python
        #: ``__array_function__``). Every other rule (a user's ``def_impl``, a higher-order
        #: primitive's, a callback's) gets its operands as they are, mj arrays.
        self.numpy_rules: set[Primitive] = set()
        self._ufunc_rules: set[Callable[..., Any]] = set()  # register_ufunc's (numpy_rules)
        #: register_ufunc's rule and shortcut function per primitive: registering that rule
        #: again (``def_impl`` of an impl read earlier) brings its shortcut back too.
        self._ufuncs: dict[Primitive, tuple[Callable[..., Any], Callable[..., Any]]] = {}

    def __setitem__(self, prim: Primitive, rule: Callable[..., Any]) -> None:
        shortcut = self._shortcuts.get(prim)
        if shortcut is not None:
            own = self._ufuncs.get(prim)
            if own is not None and rule is own[0]:
                if _shortcuts_apply():
                    shortcut.ufunc = own[1]
                else:
                    self._suspended[prim] = own[1]
            else:
                shortcut.ufunc = None
                self._suspended.pop(prim, None)
        if rule in self._ufunc_rules or getattr(rule, "__module__", None) in _NUMPY_RULE_MODULES:
            self.numpy_rules.add(prim)
        else:
            self.numpy_rules.discard(prim)
        super().__setitem__(prim, rule)

    def suspend_shortcuts(self, suspend: bool) -> None:
        """Route every eager elementwise operation through its impl rule (``suspend``) or back
        through its shortcut: eager evaluation checks ``debug_nans``/``debug_infs`` and the
        strict dtype lattice, the shortcuts cannot."""
        for prim, shortcut in self._shortcuts.items():
            if suspend:
                if shortcut.ufunc is not None:
                    self._suspended[prim] = shortcut.ufunc
                    shortcut.ufunc = None
            elif prim in self._suspended:
                shortcut.ufunc = self._suspended.pop(prim)

    def shortcut(self, prim: Primitive) -> UfuncShortcut:
        """``prim``'s shortcut: always the same object, so a wrapper can keep it."""
        shortcut = self._shortcuts.get(prim)
        if shortcut is None:
            shortcut = self._shortcuts[prim] = UfuncShortcut(prim)
        return shortcut

    def register_ufunc(
        self,
        prim: Primitive,
        nin: int,
        ufunc: Callable[..., Any],
        operands: Callable[[list[Any]], tuple[list[Any], Any]] | None = None,
        *,
        inexact: bool = False,
        keeps_dtype: bool = False,
        kinds: str = "biufc",
        complex_ufunc: Callable[[Any], Any] | None = None,
        accepts: Callable[[np.dtype[Any]], bool] | None = None,
    ) -> None:
        """Make ``ufunc`` (``nin`` operands, returning the single output) ``prim``'s impl rule
        and its shortcut.

        ``complex_ufunc`` (a float-valued op of one operand) computes complex operands in
        ``ufunc``'s place (XLA's complex kernels, where NumPy's differ at infinities): the impl
        rule calls it for them, and the shortcut leaves them to the impl rule, so real operands
        still call the bare ``ufunc``.

        ``operands`` readies operands NumPy would type differently from mj before the rule
        applies ``ufunc`` (operands of several dtypes, and bool or integer operands of a
        float-valued op, one that is ``inexact``): it returns them (e.g. weak Python scalars as
        the arrays' dtype) and the output dtype, or raises ``TypeError`` for operands ``prim``
        does not accept.

        ``accepts(dtype)``: whether ``prim``'s typing rule accepts operands all of ``dtype``
        (asked once per dtype): operands of a dtype it refuses are given to ``operands``, which
        raises the typing rule's error, and the shortcut leaves them to the impl rule."""
        shortcut = self.shortcut(prim)
        shortcut.accepts = _accepts_any if accepts is None else accepts
        shortcut.accepted.clear()
        shortcut.computes.clear()
        shortcut.refused.clear()
        accepted = shortcut.accepted
        accepts_dtype = shortcut.accepts_dtype

        def unary(x: object) -> list[Any]:
            if operands is not None:
                dx = getattr(x, "dtype", _NO_DTYPE)
                kind = dx.kind
                if (inexact and kind not in "fc") or not (dx in accepted or accepts_dtype(dx)):
                    return _typed(operands, [x])
                if kind != "c":  # (the dtype read once: complex_ufunc's dispatch, inline)
                    return [plain(x)]
            return [ufunc(x)]

        def binary(x: object, y: object) -> list[Any]:
            if operands is not None:
                dx = getattr(x, "dtype", _NO_DTYPE)
                if (
                    dx is not getattr(y, "dtype", _NO_DTYPE)
                    or (inexact and dx.kind not in "fc")
                    or not (dx in accepted or accepts_dtype(dx))
                ):
                    return _typed(operands, [x, y])
            return [ufunc(x, y)]

        def nary(*args: object) -> list[Any]:
            if operands is None:
                return [ufunc(*args)]
            return _typed(operands, list(args))

        def _typed(
            operands: Callable[[list[Any]], tuple[list[Any], Any]], args: list[Any]
        ) -> list[Any]:
            ready, dtype = operands(args)
            out = ufunc(*ready)
            if (
                dtype is not None
                and getattr(out, "dtype", None) is not dtype
                and np.result_type(out) != dtype
            ):
                out = np.asarray(out).astype(dtype)
            return [out]

        plain = ufunc  # the shortcut's
        if complex_ufunc is not None:
            if nin != 1 or not inexact:
                raise TypeError(f"{prim.name}: complex_ufunc is for float-valued unary ops")

            def ufunc(x: Any) -> Any:
                if getattr(x, "dtype", _NO_DTYPE).kind == "c":
                    return complex_ufunc(x)
                return plain(x)

        # unary and binary rules take their operands directly (no ``*args`` tuple)
        rule = unary if nin == 1 else binary if nin == 2 else nary
        rule.__name__ = rule.__qualname__ = f"{prim.name}_impl"
        self._ufunc_rules.add(rule)
        self._ufuncs.pop(prim, None)
        self[prim] = rule
        self._ufuncs[prim] = (rule, plain)
        shortcut.inexact_only = inexact
        shortcut.inexact_kinds = "fc" if complex_ufunc is None else "f"
        shortcut.keeps_dtype = keeps_dtype
        shortcut.kinds = kinds
        if _shortcuts_apply():
            shortcut.ufunc = plain
        else:
            self._suspended[prim] = plain


#: The modules whose impl rules are NumPy computations on their operands (see
#: ``ImplRules.numpy_rules``, which ``register_ufunc``'s rules join too): mj-core's primitive
#: families, not its callbacks (which hand the operands to user code) nor its collectives
#: (which re-bind them).
_NUMPY_RULE_MODULES = frozenset(
    f"mj_core.prims.{family}"
    for family in (
        "complex", "contractions", "conversions", "convolution", "elementwise", "fft",
        "indexing", "linalg", "reductions", "sorting", "special", "structural", "windowed",
    )
)  # fmt: skip


def _shortcuts_apply() -> bool:
    """The shortcuts skip what :func:`~mj_core._eager.evaluate.eval_primitive` checks:
    ``debug_nans``/``debug_infs``, and NumPy's promotion where it agrees with JAX's standard
    lattice; while a check is on or the lattice is the strict one, eager operations take the
    impl rules. (Rank promotion is no primitive's check: the NumPy-level wrappers leave
    operands of different ranks to their NumPy-level function while it is checked.)"""
    return (
        config.numpy_dtype_promotion == "standard"
        and not config.debug_nans
        and not config.debug_infs
    )


def _update_shortcuts(_: object) -> None:
    impl_rules.suspend_shortcuts(not _shortcuts_apply())


_NO_DTYPE = np.dtype(np.void)  # what the unary rule sees of an operand without a dtype

impl_rules = ImplRules()
on_change("debug_nans", _update_shortcuts)
on_change("debug_infs", _update_shortcuts)
on_change("numpy_dtype_promotion", _update_shortcuts)
_update_shortcuts(None)

# Named by mj_ir: users of jaxprs know it as ``mj_ir.abstract_eval_rules`` (this very dict).
abstract_eval_rules: RuleTable[Callable[..., Any]] = RuleTable(
    "abstract_eval_rules", "abstract evaluation", "mj_ir"
)
"""``abstract_eval_rules[p](*avals, **params) -> list[ShapedArray]``: the output types of ``p``
from its operands' types (``TypeError`` naming the primitive and the operand types for
operands or params it does not accept, ``ValueError`` for out-of-range axes)."""

effectful_primitives: set[Primitive] = set()
"""The primitives with an effect (JAX's ``effects`` of their equations): dead-code elimination
keeps their equations, and the higher-order equations whose bodies hold one, though no output
is used (``dce_sink``, ``debug_callback``)."""
