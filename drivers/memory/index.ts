import { definePlugin } from '../../kernel';
import { MemoryDatasource } from './memory-datasource';

export { MemoryDatasource };

/** The `memory` driver: datasources kept in process memory, lost on restart. */
export default definePlugin(() => ({
  name: 'driver-memory',
  register(kernel) {
    kernel.registerDriver('memory', (name) => new MemoryDatasource(name));
  },
}));
