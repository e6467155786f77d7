/** JSON-RPC: every abstract data operation is one POST {routes.rpc} {op, object, args}. */
import { outcomeOf, plainRecord, specFilter, type Client, type ListQuery, type Outcome, type ProtocolAdapter } from '../protocol';
import type { MatrixUser } from '../users';

export const rpcAdapter: ProtocolAdapter = {
  name: 'JSON-RPC',
  plugins: { rpc: true },
  connect(client: Client) {
    async function call(
      user: MatrixUser,
      op: string,
      object: string,
      args: unknown,
      shape: (body: any, out: Outcome) => void,
    ): Promise<Outcome> {
      const res = await client.request(user, 'POST', client.routes.rpc, { op, object, args });
      const out = outcomeOf(res.status, res.body);
      if (res.status < 300) shape(res.body, out);
      return out;
    }
    const items = (body: any, out: Outcome) => {
      out.items = body.items;
      out.total = body.meta?.total;
    };
    const record = (body: any, out: Outcome) => void (out.record = plainRecord(body));
    const count = (body: any, out: Outcome) => void (out.count = body.count);
    const expand = (e: NonNullable<ListQuery['expand']>) =>
      Object.fromEntries(Object.entries(e).map(([f, o]) => [f, { ...o, ...(o.filters ? { filters: specFilter(o.filters) } : {}) }]));
    const find = (q: ListQuery) => ({
      ...(q.filters ? { filters: specFilter(q.filters) } : {}),
      ...(q.sort ? { sort: q.sort } : {}),
      ...(q.fields ? { fields: q.fields } : {}),
      ...(q.expand ? { expand: expand(q.expand) } : {}),
      ...(q.top !== undefined ? { top: q.top } : {}),
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
    });

    return {
      data: {
        list: (user, object, q = {}) => call(user, 'find', object, find(q), items),
        get: (user, object, id, q = {}) =>
          call(user, 'findOne', object, q.fields || q.expand ? { ...find(q), filters: [['id', '=', id]] } : id, record),
        count: (user, object, filters) => call(user, 'count', object, filters ? { filters: specFilter(filters) } : {}, count),
        aggregate: (user, object, q) =>
          call(
            user,
            'find',
            object,
            {
              ...(q.groupBy ? { groupBy: q.groupBy } : {}),
              aggregate: q.aggregate,
              ...(q.filters ? { filters: specFilter(q.filters) } : {}),
            },
            items,
          ),
        create: (user, object, data) => call(user, 'create', object, data, record),
        createMany: (user, object, data) => call(user, 'createMany', object, data, items),
        update: (user, object, id, data) => call(user, 'update', object, { id, data }, record),
        delete: (user, object, id) => call(user, 'delete', object, { id }, record),
        updateMany: (user, object, filters, data) => call(user, 'updateMany', object, { filters, data }, count),
        deleteMany: (user, object, filters) => call(user, 'deleteMany', object, { filters }, count),
        action: (user, object, action, { id, input }) =>
          call(user, 'action', object, { action, ...(id ? { id } : {}), ...(input ? { input } : {}) }, record),
      },
    };
  },
};
