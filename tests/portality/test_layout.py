"""The codebase's shape: no import cycle anywhere in the product, imports inside functions
included (import-linter's contracts check the layers and each app's siblings; this walks the
whole graph, sub-packages too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp

PRODUCT = (
    "portality", "licenses", "knowledge", "memory", "conversations", "chat", "runtime",
    "observability", "accounts", "providers", "web", "text", "datastores",
)  # fmt: skip


def import_cycles(graph: grimp.ImportGraph) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == module:
                        break
                if len(group) > 1:
                    groups.append(group)
    return groups


def test_the_product_has_no_import_cycle():
    graph = grimp.build_graph(*PRODUCT, cache_dir=None)

    assert import_cycles(graph) == []


def test_a_cycle_is_found_when_there_is_one():
    graph = grimp.ImportGraph()
    for importer, imported in [("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("a.z", "a.w")]:
        graph.add_import(importer=importer, imported=imported)

    assert import_cycles(graph) == [{"a.x", "a.y", "a.z"}]


def imports_inside_functions_without_a_reason() -> list[str]:
    """Imports inside functions hide a dependency: each needs its reason written beside it,
    on its line or in a comment right above its block (a bare ``noqa`` is no reason)."""
    unexplained = []
    for package in PRODUCT:
        for path in sorted(Path(package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            lines = path.read_text().splitlines()
            for function in ast.walk(ast.parse("\n".join(lines))):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(function):
                    if isinstance(node, ast.Import | ast.ImportFrom) and not _explained(
                        lines, node.lineno - 1
                    ):
                        unexplained.append(f"{path}:{node.lineno}")
    return unexplained


def _explained(lines: list[str], index: int) -> bool:
    own = lines[index]
    if "#" in own and "noqa: PLC0415" not in own:
        return True
    above = index - 1
    while above >= 0 and _part_of_an_import_block(lines[above].strip()):
        above -= 1
    return above >= 0 and lines[above].strip().startswith("#")


def _part_of_an_import_block(line: str) -> bool:
    return not line or line.startswith(("import ", "from ", ")")) or line.endswith(",")


def test_every_import_inside_a_function_says_why():
    assert imports_inside_functions_without_a_reason() == []


def test_the_search_package_s_map_names_each_of_its_modules():
    import knowledge.search

    modules = {path.stem for path in Path("knowledge/search").glob("*.py")} - {"__init__"}
    named = set(re.findall(r"``(\w+)``", knowledge.search.__doc__ or ""))

    assert modules <= named, sorted(modules - named)
