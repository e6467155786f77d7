using { bench_item as Item, bench_category as Category } from './schema';

// OData V4 (CAP's default protocol) at /odata/v4/bench. No GraphQL: @cap-js/graphql 0.10.1 does not
// load under @sap/cds 9.9 (it requires @sap/cds/libx/_runtime/common/error/frontend, gone in 9).
// Open to anonymous users, as the ObjectQL server is: in production CAP requires an authenticated
// user of every service that says nothing.
@requires: 'any'
service BenchService {
  entity bench_item     as projection on Item;
  entity bench_category as projection on Category;
}
