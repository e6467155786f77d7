import { definePlugin } from '../../kernel';
import { parseMongoConfig } from './config';
import { MongoDatasource } from './mongo-datasource';

export { MongoDatasource };
export { parseMongoConfig, type MongoDatasourceConfig } from './config';
export { toMongoFilter } from './filter-mongo';
export { toPipeline, finishAggregate, type AggregatePlan } from './aggregate-mongo';
export { toMongoSort } from './sort-mongo';
export { toStoreError } from './errors';

/**
 * The `mongo` driver: a datasource `{driver: 'mongo', url, database?, options?}` keeps each object
 * in a collection of one MongoDB database, on the official `mongodb` package.
 */
export default definePlugin(() => ({
  name: 'driver-mongo',
  register(kernel) {
    kernel.registerDriver('mongo', (name, config, deps) => new MongoDatasource(name, parseMongoConfig(name, config), deps));
  },
}));
