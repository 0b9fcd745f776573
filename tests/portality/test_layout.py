"""The codebase's shape: no import cycle anywhere in the product, imports inside functions
included (import-linter's contracts check the layers and each app's siblings; this walks the
whole graph, sub-packages too)."""

from __future__ import annotations

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
