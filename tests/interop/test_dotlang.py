"""The DOT parser on the language's corners (both the fast attribute path and the tokens)."""

from __future__ import annotations

import pytest

from fabricstudio.interop import InteropError
from fabricstudio.interop.dotlang import edge_line, graph_text, node_line, parse_dot, quote


def test_corners_of_the_language():
    text = """
    /* a comment */ strict digraph "g" {
      // defaults apply to later nodes
      node [shape=box, role="leaf"];
      rankdir = LR
      a [label=<<b>x]</b>>]
      b [label="two " + "parts", /* inline */ fixed]
      a -> b -> c [speed_gbps=400; plane="compute"]
      subgraph cluster1 { node [role=spine]; s1; s2 }
      a -- {s1 s2}
      "q\\"uote":"p1":n -- b:"eth 2"
    # a preprocessor line
    }"""
    graph = parse_dot(text, "t")
    assert graph.directed and graph.name == "g" and graph.attrs["rankdir"] == "LR"
    assert graph.nodes["a"]["label"] == "<b>x]</b>" and graph.nodes["a"]["role"] == "leaf"
    assert graph.nodes["b"]["label"] == "two parts" and graph.nodes["b"]["fixed"] == "true"
    assert graph.nodes["s1"]["role"] == "spine"
    ends = [(a, b) for a, _, b, _, _ in graph.edges]
    assert ends[:2] == [("a", "b"), ("b", "c")] and ("a", "s1") in ends and ("a", "s2") in ends
    assert graph.edges[0][4] == {"speed_gbps": "400", "plane": "compute"}
    assert graph.edges[-1][:4] == ('q"uote', "p1", "b", "eth 2")


def test_writer_output_parses_back_with_odd_text():
    name = 'x "y"\\ \n z'
    text = graph_text(name, {"k": 'v"]'}, [node_line("n]1", {"label": "a\\b"}),
                                           edge_line("n]1", "p:1", "m", None, {"w": 1.0})])
    graph = parse_dot(text, "t")
    assert graph.name == name.replace("\n", "\n") and graph.attrs["k"] == 'v"]'
    assert graph.nodes["n]1"]["label"] == "a\\b"
    assert graph.edges == [("n]1", "p:1", "m", None, {"w": "1"})]
    assert quote("a\x01b") == '"a b"'


@pytest.mark.parametrize("text,line", [("graph {\n a -- \n}", 3), ("graph {\n a [b=] \n}", 2),
                                       ("graph {\n a [node=1] }", 2), ("graph { a } extra", 1),
                                       ("graph {\n\n a @ b }", 3), ("graph { a [x=<y] }", 1)])
def test_syntax_errors_name_the_line(text, line):
    with pytest.raises(InteropError, match=f"line {line}"):
        parse_dot(text, "t")
