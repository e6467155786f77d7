/**
 * The fields selected under some field nodes, by field name (aliases merged; fragments, inline
 * fragments and @skip / @include honoured): what a page's `items` or an aggregate row's `sum`
 * asks for. Pure.
 */
import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { included } from './selection';

export type SelectionInfo = Pick<GraphQLResolveInfo, 'fragments' | 'variableValues'>;

/** The field nodes selected under `nodes`, grouped by field name (`__typename` and the like left out). */
export function subSelections(nodes: readonly FieldNode[], info: SelectionInfo): Map<string, FieldNode[]> {
  const out = new Map<string, FieldNode[]>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): void => {
    for (const node of set?.selections ?? []) {
      if (!included(node, info.variableValues)) continue;
      if (node.kind === Kind.FIELD) {
        const name = node.name.value;
        if (name.startsWith('__')) continue;
        out.set(name, [...(out.get(name) ?? []), node]);
      } else if (node.kind === Kind.INLINE_FRAGMENT) walk(node.selectionSet);
      else if (!seen.has(node.name.value)) {
        seen.add(node.name.value);
        walk(info.fragments[node.name.value]?.selectionSet);
      }
    }
  };
  for (const node of nodes) walk(node.selectionSet);
  return out;
}
