"""The JSON Schema describes every key the parsers emit (docs/json.md "What the schema describes").

Real outputs (CUTLASS 4.2 collectives with their kernel layers, 77's and 88's attention kernels,
FlashAttention-4's `flash_fwd_sm90.py` / `flash_bwd_sm100.py`, our raw-mbarrier, DSL and v2
fixtures, a PTX ring and two compiled units' PTX, the bundled `examples/*.json`) are walked object by object beside the
schema: every key must be named in an applicable subschema's `properties`, or matched by a
`patternProperties` / `additionalProperties` subschema, and what describes it must say something
(a type, enum, const or reference, not `{}` / `true`). So a parser that starts emitting a key the
schema does not describe fails here, with the key's path. Each output is also validated with
jsonschema; since every object of the schema is closed (`additionalProperties: false`, checked
below), validation alone refuses an undescribed key too. The last tests remove a key from a copy
of the schema and show both checks fail.
"""

import copy
import json
import re

import pytest

import parse_cutlass
import parse_dsl
import ptx_programs
from conftest import ROOT, SCHEMA_PATH
from test_parser_dsl import fa4_dir
from test_ptx_front_end import RING
from test_ptx_programs import _no_nvcc, kernel, ptx_cache

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
FIXTURES = ROOT / "tests" / "fixtures"

C = "include/cutlass/gemm/collective/"
K = "include/cutlass/gemm/kernel/"
E77 = "examples/77_blackwell_fmha/"
E88 = "examples/88_hopper_fmha/"
# (mainloop, kernel layer, epilogue collective, --params-from TU), relative to the CUTLASS tree:
# chosen so that together they emit every key the 33 kernels of docs/coverage.md emit (measured
# by a greedy cover of their key paths: composed collectives, lambdas, SM100 warp roles, kernel
# pipelines and state aliases, stage_count, the epilogue's null line, params from a TU).
CUTLASS_INPUTS = [
    (C + "sm90_mma_tma_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_tma_warpspecialized_pingpong.hpp", None,
     "examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu"),
    (C + "sm90_mma_multistage_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_warpspecialized_cooperative.hpp", None, None),
    (C + "sm100_mma_array_warpspecialized.hpp", K + "sm100_gemm_array_tma_warpspecialized.hpp", None, None),
    (E77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", E77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp",
     E77 + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp", None),
    (E77 + "collective/sm100_fmha_gen_mainloop_warpspecialized.hpp", E77 + "kernel/sm100_fmha_gen_kernel_warpspecialized.hpp", None, None),
    (E88 + "collective/fmha_collective_tma_warpspecialized.hpp", E88 + "kernel/fmha_kernel_tma_warpspecialized.hpp", None, None),
    (E88 + "collective/fmha_collective_bwd_tma_warpspecialized.hpp", None, None, None),
]
FA4_INPUTS = ["flash_fwd_sm90.py", "flash_bwd_sm100.py"]
# Real PTX units (tests/compiled/, built or reused through ptx_cache as test_compiled_truth.py
# does): the pingpong GEMM's PTX has .loc chains, setmaxnreg hints, lone barriers and trip counts
# with their source line; the SM100 1-SM GEMM's has guarded instructions (`guard`).
PTX_UNITS = ["sm90_gemm_pingpong", "sm100_gemm_1sm"]
FIXTURE_INPUTS = sorted(p.relative_to(FIXTURES).as_posix() for pattern in
                        ("raw_mbarrier_*", "v2_*.hpp", "two_rings_*.hpp", "dsl/*.py") for p in FIXTURES.glob(pattern))
EXAMPLE_INPUTS = sorted(p.name for p in (ROOT / "examples").glob("*.json"))

# The keys of a step that hold more steps: a path through them is written `body*` so the report
# names a key once however deep it sits.
STEP_LISTS = ("body", "then", "else", "init", "step")
RE_STEP_RUN = re.compile(r"(?:\.(?:%s)\[\])+" % "|".join(STEP_LISTS))

_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def json_type(value):
    """The JSON Schema type name of a value (integers are `integer`)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return _TYPES[type(value)]


class Coverage:
    """Walks an instance beside one schema and collects the key paths no subschema describes."""

    def __init__(self, schema):
        self.schema = schema
        self._validators = {}

    def deref(self, ref):
        """The subschema a local `$ref` (`#/$defs/x`) names."""
        node = self.schema
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def valid(self, sub, value):
        """Whether value validates against a subschema (its `$ref`s resolved in self.schema)."""
        key = id(sub)
        if key not in self._validators:
            self._validators[key] = (sub, jsonschema.Draft202012Validator(dict(sub, **{"$defs": self.schema["$defs"]})))
        return self._validators[key][1].is_valid(value)

    def _may_match(self, sub, value):
        """A cheap filter before full validation: a branch whose `type` excludes the value's."""
        if not isinstance(sub, dict):
            return sub is not False
        if "$ref" in sub and len(sub) == 1:
            return self._may_match(self.deref(sub["$ref"]), value)
        types = sub.get("type")
        if types is None:
            return True
        types = [types] if isinstance(types, str) else types
        t = json_type(value)
        return t in types or (t == "integer" and "number" in types)

    def applicable(self, sub, value):
        """Every subschema that applies to value: sub itself and, through `$ref`, `allOf`, the
        `oneOf` / `anyOf` branches value validates against, and `if` / `then` / `else`."""
        if not isinstance(sub, dict):
            return []
        out = [sub]
        if "$ref" in sub:
            out += self.applicable(self.deref(sub["$ref"]), value)
        for part in sub.get("allOf", ()):
            out += self.applicable(part, value)
        for key in ("oneOf", "anyOf"):
            branches = [b for b in sub.get(key, ()) if self._may_match(b, value)]
            if len(branches) > 1:
                branches = [b for b in branches if self.valid(b, value)]
            for b in branches:
                out += self.applicable(b, value)
        if "if" in sub:
            out += self.applicable(sub.get("then" if self.valid(sub["if"], value) else "else", True), value)
        return out

    def undescribed(self, instance):
        """{key path: count} of the keys no applicable subschema describes."""
        found = {}
        self._walk(instance, [self.schema], "$", found)
        return found

    def _walk(self, value, schemas, path, found):
        subs = [a for s in schemas for a in self.applicable(s, value)]
        if isinstance(value, dict):
            for key, item in value.items():
                described = [c for c in self._children(subs, key) if says_something(c)]
                if not described:
                    name = RE_STEP_RUN.sub(".body*[]", f"{path}.{key}")
                    found[name] = found.get(name, 0) + 1
                    continue
                self._walk(item, described, f"{path}.{key}", found)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                children = []
                for s in subs:
                    prefix = s.get("prefixItems", [])
                    if i < len(prefix):
                        children.append(prefix[i])
                    elif isinstance(s.get("items"), dict):
                        children.append(s["items"])
                self._walk(item, children, f"{path}[]", found)

    @staticmethod
    def _children(subs, key):
        """The subschemas that describe one key of an object, from the object's subschemas."""
        out = []
        for s in subs:
            props = s.get("properties", {})
            if key in props:
                out.append(props[key])
            matched = False
            for pattern, sub in s.get("patternProperties", {}).items():
                if re.search(pattern, key):
                    out.append(sub)
                    matched = True
            extra = s.get("additionalProperties")
            if key not in props and not matched and isinstance(extra, dict):
                out.append(extra)
        return out


def says_something(sub):
    """A subschema that constrains its value: not `true`, `{}` or a bare description."""
    return isinstance(sub, dict) and bool(set(sub) - {"description", "title", "$comment"})


def check(model, schema=SCHEMA):
    """(undescribed key paths, validation messages) of one model against a schema."""
    missing = Coverage(schema).undescribed(model)
    validator = jsonschema.Draft202012Validator(schema)
    errors = [f"{list(e.absolute_path)[:8]}: {e.message[:200]}" for e in validator.iter_errors(model)]
    return missing, errors


def assert_covered(model):
    missing, errors = check(model)
    assert not missing, f"keys the schema does not describe: {sorted(missing)}"
    assert not errors, errors[:5]


# ---------------------------------------------------------------------------------- the inputs

@pytest.mark.parametrize("entry", CUTLASS_INPUTS, ids=lambda e: e[0].rsplit("/", 1)[-1] + (" + kernel" if e[1] else ""))
def test_cutlass_outputs_are_described(cutlass, entry):
    main, layer, epilogue, tu = entry
    model = parse_cutlass.parse_file(cutlass(main), cutlass(layer) if layer else None)
    if epilogue:
        parse_cutlass.add_epilogue(model, cutlass(epilogue))
    if tu:
        parse_cutlass.attach_params(model, cutlass(tu))
        assert model["tile"]["file"]   # the TU's facts, each with its file
    assert_covered(model)


@pytest.mark.parametrize("name", FA4_INPUTS)
def test_fa4_outputs_are_described(name):
    model = parse_dsl.parse_file(fa4_dir() / name)
    assert model["kernel_layer"]["role_vars"][0]["constructor"]["attrs"]
    assert_covered(model)


@pytest.mark.parametrize("name", FIXTURE_INPUTS)
def test_fixture_outputs_are_described(name):
    assert_covered(parse_cutlass.parse_file(FIXTURES / name))


def test_ptx_output_is_described():
    model = ptx_programs.parse_text(kernel(RING, "64, 1, 1"), "ring.ptx", "ring.ptx")
    assert model["language"] == "ptx" and model["ptx"]["rings"]
    assert_covered(model)


@pytest.mark.parametrize("unit", PTX_UNITS)
def test_real_ptx_output_is_described(unit):
    nvcc, root = ptx_cache.find_nvcc(), ptx_cache.cutlass_root()
    if nvcc is None or root is None:
        _no_nvcc("no nvcc" if nvcc is None else "no CUTLASS headers")
    path, _, _ = ptx_cache.build_all([ptx_cache.UNITS_BY_NAME[unit]], root, nvcc)[unit]
    if isinstance(path, Exception):
        pytest.fail(str(path))
    model = ptx_programs.parse_file(path)
    assert model["ptx"]["rings"] and model["programs"]["functions"]
    assert_covered(model)


@pytest.mark.parametrize("name", EXAMPLE_INPUTS)
def test_examples_are_described(name):
    assert_covered(json.loads((ROOT / "examples" / name).read_text(encoding="utf-8")))


def test_the_inputs_are_found():
    """The globbed inputs exist (an empty list would make the parametrized tests vacuous)."""
    assert len(FIXTURE_INPUTS) >= 12 and any(n.startswith("raw_mbarrier_") for n in FIXTURE_INPUTS)
    assert any(n.startswith("dsl/") for n in FIXTURE_INPUTS)
    assert len(EXAMPLE_INPUTS) >= 7


# ---------------------------------------------------------------------------------- the schema

def _object_schemas(node, path="#"):
    """(path, subschema) of every subschema that lists `properties`."""
    if isinstance(node, dict):
        if "properties" in node:
            yield path, node
        for key, sub in node.items():
            yield from _object_schemas(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _object_schemas(sub, f"{path}/{i}")


def _described(sub):
    """A property schema with a description, directly or through the definition it references."""
    if not isinstance(sub, dict):
        return False
    if "description" in sub:
        return True
    return "$ref" in sub and _described(Coverage(SCHEMA).deref(sub["$ref"]))


def test_every_object_is_closed():
    """No object lets an undescribed key through: each is additionalProperties false, or its
    additionalProperties is itself a described schema (data-named keys: a constructor's params)."""
    open_ = [path for path, sub in _object_schemas(SCHEMA)
             if sub.get("additionalProperties") is not False and not says_something(sub.get("additionalProperties"))]
    assert not open_, open_


def test_every_property_has_a_type_and_a_description():
    bare = [f"{path}.{key}" for path, sub in _object_schemas(SCHEMA) for key, prop in sub["properties"].items()
            if not says_something(prop) or not _described(prop)]
    assert not bare, bare


def test_the_schema_version_is_the_parsers():
    """The schema's const is the version every front end writes (parse_core.SCHEMA_VERSION)."""
    assert SCHEMA["properties"]["schema_version"]["const"] == parse_cutlass.SCHEMA_VERSION
    assert f"schema_version {parse_cutlass.SCHEMA_VERSION}" in SCHEMA["description"]


# ---------------------------------------------------------------------------------- it can fail

@pytest.fixture(scope="module")
def ring_model():
    """The raw-mbarrier FP8 fixture's parse: ring ops, lambdas, a __global__ program's aliases."""
    return parse_cutlass.parse_file(FIXTURES / "raw_mbarrier_fp8_gemm_sm90.cuh")


@pytest.mark.parametrize("where, key, path", [
    (("$defs", "step", "properties"), "ring", "$.programs.functions[].body*[].ring"),
    (("$defs", "program", "properties"), "aliases", "$.programs.functions[].aliases"),
    (("$defs", "lambda_program", "properties"), "captures", "$.programs.functions[].lambdas[].captures"),
    (("$defs", "pipeline", "properties", "ring", "properties"), "init", "$.pipelines[].ring.init"),
])
def test_a_key_removed_from_the_schema_is_reported(ring_model, where, key, path):
    """Removing one described key from a copy of the schema makes both checks fail on the key."""
    assert check(ring_model) == ({}, [])
    schema = copy.deepcopy(SCHEMA)
    node = schema
    for part in where:
        node = node[part]
    del node[key]
    missing, errors = check(ring_model, schema)
    assert path in missing, sorted(missing)
    assert any(repr(key) in e and "unexpected" in e for e in errors), errors[:3]


def test_an_undescribed_key_is_reported(ring_model):
    """A key a parser might start emitting, at three depths, is named with its path."""
    model = copy.deepcopy(ring_model)
    model["surprise"] = 1
    model["functions"][0]["ops"][0]["hint"] = "x"
    step = next(s for s in _steps(model["programs"]["functions"]) if s["node"] == "loop")
    step["body"].append({"node": "op", "op": "mma", "line": 1, "flavour": "new"})
    missing, errors = check(model)
    assert set(missing) == {"$.surprise", "$.functions[].ops[].hint", "$.programs.functions[].body*[].flavour"}
    assert len(errors) == 3


def test_an_untyped_description_does_not_count(ring_model):
    """A property whose schema only describes (`{"description": ...}`) does not describe the key."""
    schema = copy.deepcopy(SCHEMA)
    schema["$defs"]["step"]["properties"]["ring"] = {"description": "a ring"}
    missing, _ = check(ring_model, schema)
    assert "$.programs.functions[].body*[].ring" in missing


def _steps(programs):
    """Every step of some programs, nested ones too."""
    stack = [s for p in programs for s in p["body"]]
    while stack:
        s = stack.pop()
        yield s
        for key in STEP_LISTS:
            stack.extend(s.get(key) or ())
