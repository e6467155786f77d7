/**
 * A find whose sort goes through a to-one relation (SortKey.through) as an aggregation pipeline:
 *
 *   $match (the filter) → per such key: $lookup of the related document within the caller's scope
 *   on it, its field kept under a helper name → $sort → $skip → $limit → $project
 *
 * The helper holds the related field's value, or nothing when there is no related document, it is
 * outside the scope or lacks the field: MongoDB sorts a missing field as null, first ascending and
 * last descending (sort-mongo.ts), as the contract wants. Helper names hold a `#`, which no field
 * name can (values.ts), and never reach the caller: the final $project drops them.
 */
import type { Document } from 'mongodb';
import type { Query } from '../../kernel';
import { toMongoFilter } from './filter-mongo';
import { toMongoSort } from './sort-mongo';
import { MONGO_ID, fieldPath, toProjection } from './values';

/** The pipeline of a find sorting through a relation; undefined when no key does. */
export function sortThroughPipeline(query: Query, skip: number, top: number | undefined): Document[] | undefined {
  const sort = query.sort ?? [];
  if (!sort.some((key) => key.through)) return undefined;
  const pipeline: Document[] = [{ $match: toMongoFilter(query.filter) }];
  const helpers: string[] = [];
  const keys = sort.map((key, i) => {
    if (!key.through) return key;
    const { object, field, scope } = key.through;
    const as = `#sort${i}`;
    helpers.push(as);
    pipeline.push(
      {
        $lookup: {
          from: object,
          let: { ref: `$${fieldPath(key.field)}` },
          pipeline: [
            { $match: { $expr: { $eq: [`$${MONGO_ID}`, '$$ref'] } } },
            ...(scope ? [{ $match: toMongoFilter(scope) }] : []),
            { $project: { [MONGO_ID]: 0, value: `$${fieldPath(field)}` } },
          ],
          as,
        },
      },
      { $addFields: { [as]: { $arrayElemAt: [`$${as}.value`, 0] } } },
    );
    return { field: as, dir: key.dir };
  });
  const order = toMongoSort(keys, (f) => (helpers.includes(f) ? f : fieldPath(f)));
  if (order) pipeline.push({ $sort: order });
  if (skip > 0) pipeline.push({ $skip: skip });
  if (top !== undefined) pipeline.push({ $limit: top });
  pipeline.push({ $project: toProjection(query.fields) ?? Object.fromEntries(helpers.map((h) => [h, 0])) });
  return pipeline;
}
