/**
 * The fields a query selects on a record type: handed to the engine as `fields`, so a field the
 * caller may not read is refused exactly as an unknown field is (the schema is the same for
 * everybody; permissions are the engine's). Fragments and @skip / @include are honoured. Pure.
 */
import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type FieldNode,
  type FragmentSpreadNode,
  type GraphQLResolveInfo,
  type InlineFragmentNode,
  type SelectionSetNode,
} from 'graphql';

type Info = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>;

/** The names selected on `typeName` under the resolved field (`id` always included, `__typename` left out). */
export function selectedFields(info: Info, typeName: string): string[] {
  const names = new Set<string>(['id']);
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): void => {
    for (const node of set?.selections ?? []) {
      if (!included(node, info.variableValues)) continue;
      if (node.kind === Kind.FIELD) {
        if (!node.name.value.startsWith('__')) names.add(node.name.value);
      } else if (node.kind === Kind.INLINE_FRAGMENT) {
        if (!node.typeCondition || node.typeCondition.name.value === typeName) walk(node.selectionSet);
      } else {
        const fragment = info.fragments[node.name.value];
        if (!fragment || seen.has(node.name.value) || fragment.typeCondition.name.value !== typeName) continue;
        seen.add(node.name.value);
        walk(fragment.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) walk(node.selectionSet);
  return [...names];
}

function included(node: FieldNode | InlineFragmentNode | FragmentSpreadNode, variables: Record<string, unknown>): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}
