/** The metadata API: which objects and which of their fields are described to a user, and the admin-only update. */
import { outcomeOf, type Client, type ProtocolAdapter } from '../protocol';

export const metadataAdapter: ProtocolAdapter = {
  name: 'metadata API',
  plugins: { metadata: true },
  connect(client: Client) {
    const base = client.routes.metadata;
    const e = encodeURIComponent;
    return {
      describe: {
        async objects(user) {
          const res = await client.request(user, 'GET', `${base}/objects`);
          const out = outcomeOf(res.status, res.body);
          if (res.status === 200) out.described = Object.fromEntries(res.body.objects.map((o: any) => [o.name, Object.keys(o.fields)]));
          return out;
        },
        async object(user, object) {
          const res = await client.request(user, 'GET', `${base}/objects/${e(object)}`);
          const out = outcomeOf(res.status, res.body);
          if (res.status === 200) out.fields = res.body.fields.map((f: any) => f.name);
          return out;
        },
        async field(user, object, field) {
          const res = await client.request(user, 'GET', `${base}/objects/${e(object)}/fields/${e(field)}`);
          return outcomeOf(res.status, res.body);
        },
        async updateObject(user, object, patch) {
          const res = await client.request(user, 'PUT', `${base}/object/${e(object)}`, patch);
          return outcomeOf(res.status, res.body);
        },
      },
    };
  },
};
