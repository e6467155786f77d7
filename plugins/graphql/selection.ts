/**
 * The fields a query selects on a record type: handed to the engine as `fields`, so a field the
 * caller may not read is refused exactly as an unknown field is (the schema is the same for
 * everybody; permissions are the engine's). Fragments and @skip / @include are honoured. Pure.
 */
import {
  getDirectiveValues,
  getNamedType,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isLeafType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentSpreadNode,
  type GraphQLResolveInfo,
  type InlineFragmentNode,
  type SelectionSetNode,
} from 'graphql';

type Info = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues' | 'schema'>;

/**
 * The record fields selected on `typeName` under the resolved field (`id` always included,
 * `__typename` left out, and so are the relation fields: fields with arguments or a record type).
 */
export function selectedFields(info: Info, typeName: string): string[] {
  const type = info.schema.getType(typeName);
  const own = isObjectType(type) ? type.getFields() : undefined;
  const plain = (name: string) => {
    const field = own?.[name];
    return !field || (field.args.length === 0 && isLeafType(getNamedType(field.type)));
  };
  const names = new Set<string>(['id']);
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): void => {
    for (const node of set?.selections ?? []) {
      if (!included(node, info.variableValues)) continue;
      if (node.kind === Kind.FIELD) {
        if (!node.name.value.startsWith('__') && plain(node.name.value)) names.add(node.name.value);
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

/** Whether @skip / @include keep a selection. */
export function included(node: FieldNode | InlineFragmentNode | FragmentSpreadNode, variables: Record<string, unknown>): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}
