"""The Graphviz DOT language: a writer that quotes every id and value, and a parser for the
whole grammar (graph/digraph, strict, node/edge/graph defaults, subgraphs, edge chains,
``node:port`` ends, comments) with a nesting limit.

Written here rather than taken from pydot: the cable-validation and NVIDIA Air readers need
``"leaf1":"swp1" -- "server1":"eth1"`` ends, which pydot's writer does not produce, and a
10^5-edge fabric must parse in seconds with bounded recursion.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fabricstudio.interop.registry import InteropError

MAX_NESTING = 64
MAX_EDGES = 1_000_000


def quote(value: Any) -> str:
    """A DOT quoted string (backslash, quote and line breaks escaped)."""
    text = str(value)
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "\\n")
    text = "".join(ch if ch >= " " or ch == "\t" else " " for ch in text)
    return f'"{text}"'


def attr_list(attrs: Mapping[str, Any]) -> str:
    """`` [k="v" ...]`` for the attributes that are set ('' when none)."""
    items = [f"{k}={quote(_plain(v))}" for k, v in attrs.items() if v is not None]
    return f" [{' '.join(items)}]" if items else ""


def _plain(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def node_line(ident: str, attrs: Mapping[str, Any]) -> str:
    """A node statement."""
    return f"  {quote(ident)}{attr_list(attrs)}"


def edge_line(a: str, a_port: str | None, b: str, b_port: str | None,
              attrs: Mapping[str, Any], op: str = "--") -> str:
    """An edge statement with optional ``:port`` ends."""
    left = quote(a) + (f":{quote(a_port)}" if a_port else "")
    right = quote(b) + (f":{quote(b_port)}" if b_port else "")
    return f"  {left} {op} {right}{attr_list(attrs)}"


def graph_text(name: str, graph_attrs: Mapping[str, Any], lines: Iterable[str],
               directed: bool = False) -> str:
    """A whole graph."""
    head = f"{'digraph' if directed else 'graph'} {quote(name)} {{"
    body = [head]
    if graph_attrs:
        body.append(f"  graph{attr_list(graph_attrs)}")
    body.extend(lines)
    body.append("}")
    return "\n".join(body) + "\n"


# ------------------------------------------------------------------ parser
@dataclass
class DotGraph:
    """A parsed graph: attributes, nodes in order of appearance and edges with their ports."""

    name: str = ""
    directed: bool = False
    attrs: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str | None, str, str | None, dict[str, str]]] = \
        field(default_factory=list)


_HTML = r"<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>"
_TOKEN = re.compile(rf"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/|\#[^\n]*)
  | (?P<attrs>\[(?:[^\]"<>/\#+]|"(?:[^"\\]|\\.)*")*\])
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<html>{_HTML})
  | (?P<num>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
  | (?P<id>[A-Za-z_\u0080-\uffff][A-Za-z_0-9\u0080-\uffff]*)
  | (?P<op>--|->)
  | (?P<punct>[{{}}\[\]=;,:+])
  | (?P<bad>.)
""", re.VERBOSE | re.DOTALL | re.MULTILINE)
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}
_ID = (r'"(?:[^"\\]|\\.)*"|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)'
       r"|[A-Za-z_\u0080-\uffff][A-Za-z_0-9\u0080-\uffff]*")
#: One ``key = value`` of an attribute list (the fast path for lists without HTML, comments
#: or '+' concatenation, which go through the tokens instead).
_ITEM = re.compile(rf"\s*({_ID})\s*(?:=\s*({_ID}))?\s*[,;]?\s*", re.DOTALL)
_ESCAPE = re.compile(r"\\(.)")


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    return _ESCAPE.sub(lambda m: {"n": "\n", "l": "\n", "r": "\n"}.get(m.group(1),
                                                                        m.group(1)), body)


def line_of(text: str, pos: int) -> int:
    """1-based line number of offset ``pos``."""
    return text.count("\n", 0, pos) + 1


def tokenize(text: str, source: str) -> list[tuple[str, str, int]]:
    """(kind, value, offset) tokens; quoted strings joined by '+' become one."""
    tokens: list[tuple[str, str, int]] = []
    append = tokens.append
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "ws" or kind == "comment":
            continue
        value = match.group()
        pos = match.start()
        if kind == "id":
            lower = value.lower()
            append((lower, value, pos) if lower in _KEYWORDS else ("id", value, pos))
        elif kind == "str":
            value = _unescape(value[1:-1])
            if len(tokens) > 1 and tokens[-1][0] == "+" and tokens[-2][0] == "qid":
                tokens.pop()
                prev = tokens.pop()
                append(("qid", prev[1] + value, prev[2]))
            else:
                append(("qid", value, pos))
        elif kind == "num":
            append(("id", value, pos))
        elif kind == "attrs":
            append(("attrs", value[1:-1], pos))
        elif kind == "html":
            append(("id", value[1:-1], pos))
        elif kind == "bad":
            what = "unclosed <...> string" if value == "<" else f"unexpected {value!r}"
            raise InteropError(f"{source}: DOT syntax error at line {line_of(text, pos)}: "
                               f"{what}")
        else:
            append((value, value, pos))
    return [("id", v, p) if k == "qid" else (k, v, p) for k, v, p in tokens]


class _Parser:
    def __init__(self, tokens: list[tuple[str, str, int]], source: str, text: str) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0
        self.source = source
        self.graph = DotGraph()

    def _fast_attrs(self, body: str, offset: int, attrs: dict[str, str]) -> None:
        pos = 0
        while pos < len(body):
            match = _ITEM.match(body, pos)
            if match is None or match.end() == pos:
                line = line_of(self.text, offset + 1 + pos)
                raise InteropError(f"{self.source}: DOT syntax error at line {line}: bad "
                                   "attribute list")
            key, value = match.group(1), match.group(2)
            if key.lower() in _KEYWORDS and not key.startswith('"'):
                line = line_of(self.text, offset + 1 + pos)
                raise InteropError(f"{self.source}: DOT syntax error at line {line}: "
                                   f"keyword {key!r} as an attribute name")
            attrs[_id_value(key)] = "true" if value is None else _id_value(value)
            pos = match.end()

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.tokens[index][0] if index < len(self.tokens) else "EOF"

    def take(self, *kinds: str) -> str:
        kind = self.peek()
        if kind not in kinds:
            offset = self.tokens[self.pos][2] if self.pos < len(self.tokens) else len(self.text)
            line = line_of(self.text, offset)
            found = "the end of the file" if kind == "EOF" else repr(self.tokens[self.pos][1])
            raise InteropError(f"{self.source}: DOT syntax error at line {line}: expected "
                               f"{' or '.join(kinds)}, found {found}")
        value = self.tokens[self.pos][1]
        self.pos += 1
        return value

    def parse(self) -> DotGraph:
        if self.peek() == "strict":
            self.take("strict")
        kind = self.take("graph", "digraph")
        self.graph.directed = kind.lower() == "digraph"
        if self.peek() == "id":
            self.graph.name = self.take("id")
        self.take("{")
        self.stmt_list({}, {}, depth=1)
        self.take("}")
        if self.peek() != "EOF":
            self.take("EOF")
        return self.graph

    def stmt_list(self, node_defaults: dict, edge_defaults: dict, depth: int) -> list[str]:
        members: list[str] = []
        while self.peek() not in ("}", "EOF"):
            members += self.stmt(node_defaults, edge_defaults, depth)
            if self.peek() == ";":
                self.take(";")
        return members

    def stmt(self, node_defaults: dict, edge_defaults: dict, depth: int) -> list[str]:
        kind = self.peek()
        if kind in ("graph", "node", "edge") and self.peek(1) in ("[", "attrs"):
            self.take(kind)
            attrs = self.attr_lists()
            target = {"graph": self.graph.attrs if depth == 1 else {}, "node": node_defaults,
                      "edge": edge_defaults}[kind]
            target.update(attrs)
            return []
        if kind == "id" and self.peek(1) == "=":
            key = self.take("id")
            self.take("=")
            value = self.take("id")
            if depth == 1:
                self.graph.attrs[key] = value
            return []
        left = self.operand(node_defaults, edge_defaults, depth)
        if self.peek() not in ("--", "->"):
            ident, _, members = left
            if ident is not None:
                self.graph.nodes[ident].update(self.attr_lists())
            return members
        chain = [left]
        while self.peek() in ("--", "->"):
            self.take("--", "->")
            chain.append(self.operand(node_defaults, edge_defaults, depth))
        attrs = {**edge_defaults, **self.attr_lists()}
        pairs = zip(chain, chain[1:], strict=False)
        for (a_id, a_port, a_members), (b_id, b_port, b_members) in pairs:
            for a in ([a_id] if a_id is not None else a_members):
                for b in ([b_id] if b_id is not None else b_members):
                    if len(self.graph.edges) >= MAX_EDGES:
                        raise InteropError(f"{self.source}: more than {MAX_EDGES:,} edges")
                    self.graph.edges.append((a, a_port, b, b_port, dict(attrs)))
        return [m for _, _, ms in chain for m in ms]

    def operand(self, node_defaults: dict, edge_defaults: dict,
                depth: int) -> tuple[str | None, str | None, list[str]]:
        if self.peek() in ("subgraph", "{"):
            return None, None, self.subgraph(node_defaults, edge_defaults, depth)
        ident = self.take("id")
        port = None
        if self.peek() == ":":
            self.take(":")
            port = self.take("id")
            if self.peek() == ":":
                self.take(":")
                self.take("id")
        if ident not in self.graph.nodes:
            self.graph.nodes[ident] = dict(node_defaults)
        return ident, port, [ident]

    def subgraph(self, node_defaults: dict, edge_defaults: dict, depth: int) -> list[str]:
        if depth >= MAX_NESTING:
            raise InteropError(f"{self.source}: subgraphs nested too deeply (more than "
                               f"{MAX_NESTING} levels)")
        if self.peek() == "subgraph":
            self.take("subgraph")
            if self.peek() == "id":
                self.take("id")
        self.take("{")
        members = self.stmt_list(dict(node_defaults), dict(edge_defaults), depth + 1)
        self.take("}")
        return members

    def attr_lists(self) -> dict[str, str]:
        attrs: dict[str, str] = {}
        while self.peek() in ("[", "attrs"):
            if self.peek() == "attrs":
                body, offset = self.tokens[self.pos][1], self.tokens[self.pos][2]
                self.pos += 1
                self._fast_attrs(body, offset, attrs)
                continue
            self.take("[")
            while self.peek() != "]":
                key = self.take("id")
                value = "true"
                if self.peek() == "=":
                    self.take("=")
                    value = self.take("id")
                attrs[key] = value
                if self.peek() in (",", ";"):
                    self.take(self.peek())
            self.take("]")
        return attrs


def _id_value(text: str) -> str:
    return _unescape(text[1:-1]) if text.startswith('"') else text


def parse_dot(text: str, source: str) -> DotGraph:
    """Parse one DOT graph; InteropError with the line of the first syntax error."""
    try:
        return _Parser(tokenize(text, source), source, text).parse()
    except RecursionError:
        raise InteropError(f"{source}: DOT nested too deeply") from None
