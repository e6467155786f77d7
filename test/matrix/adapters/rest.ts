/**
 * REST: the spec's REST table under {routes.data}. It has no count route (a list of top=0 gives
 * meta.total) and no action route (actions are skipped).
 */
import { outcomeOf, plainRecord, specFilter, type Client, type ListQuery, type Outcome, type ProtocolAdapter, type Rec } from '../protocol';
import type { MatrixUser } from '../users';

export const restAdapter: ProtocolAdapter = {
  name: 'REST',
  plugins: { rest: true },
  connect(client: Client) {
    const base = client.routes.data;
    async function send(
      user: MatrixUser,
      method: string,
      path: string,
      body: unknown,
      shape: (body: any, out: Outcome) => void,
    ): Promise<Outcome> {
      const res = await client.request(user, method, base + path, body);
      const out = outcomeOf(res.status, res.body);
      if (res.status < 300) shape(res.body, out);
      return out;
    }
    const items = (body: any, out: Outcome) => {
      out.items = body.items;
      out.total = body.meta?.total;
    };
    const expand = (x: NonNullable<ListQuery['expand']>) =>
      JSON.stringify(
        Object.fromEntries(Object.entries(x).map(([f, o]) => [f, { ...o, ...(o.filters ? { filters: specFilter(o.filters) } : {}) }])),
      );
    const record = (body: any, out: Outcome) => void (out.record = plainRecord(body));
    const count = (body: any, out: Outcome) => void (out.count = body.count);
    const e = encodeURIComponent;
    const qs = (params: Record<string, string | undefined>) => {
      const s = new URLSearchParams(Object.entries(params).filter((p): p is [string, string] => p[1] !== undefined)).toString();
      return s ? `?${s}` : '';
    };
    const listParams = (q: ListQuery) => ({
      filter: q.filters && JSON.stringify(specFilter(q.filters)),
      sort: q.sort && q.sort.map(([f, d]) => (d === 'desc' ? `-${f}` : f)).join(','),
      fields: q.fields && q.fields.join(','),
      expand: q.expand && expand(q.expand),
      top: q.top === undefined ? undefined : String(q.top),
      limit: q.limit === undefined ? undefined : String(q.limit),
    });

    return {
      data: {
        list: (user, object, q = {}) => send(user, 'GET', `/${e(object)}${qs(listParams(q))}`, undefined, items),
        get: (user, object, id, q = {}) =>
          send(
            user,
            'GET',
            `/${e(object)}/${e(id)}${qs({ fields: q.fields?.join(','), expand: q.expand && expand(q.expand) })}`,
            undefined,
            record,
          ),
        count: (user, object, filters) =>
          send(
            user,
            'GET',
            `/${e(object)}${qs({ top: '0', filter: filters && JSON.stringify(specFilter(filters)) })}`,
            undefined,
            (body, out) => void (out.count = body.meta.total),
          ),
        aggregate: (user, object, q) =>
          send(
            user,
            'GET',
            `/${e(object)}${qs({ groupBy: q.groupBy?.join(','), aggregate: JSON.stringify(q.aggregate), filter: q.filters && JSON.stringify(specFilter(q.filters)) })}`,
            undefined,
            items,
          ),
        create: (user, object, data) => send(user, 'POST', `/${e(object)}`, data, record),
        createMany: (user, object, data) => send(user, 'POST', `/${e(object)}`, data, items),
        update: (user, object, id, data) => send(user, 'PUT', `/${e(object)}/${e(id)}`, data, record),
        delete: (user, object, id) => send(user, 'DELETE', `/${e(object)}/${e(id)}`, undefined, record),
        updateMany: (user, object, filters: Rec, data: Rec) => send(user, 'POST', `/${e(object)}/bulk-update`, { filters, data }, count),
        deleteMany: (user, object, filters: Rec) => send(user, 'POST', `/${e(object)}/bulk-delete`, { filters }, count),
      },
    };
  },
};
