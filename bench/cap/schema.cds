// The bench objects of bench/metadata/*.yml as a CAP user would declare them. `managed` stamps
// createdAt/By and modifiedAt/By as ObjectQL stamps created_at/by and updated_at/by; @mandatory,
// the checked enum and @assert.target are the checks ObjectQL runs on a create (required name,
// select options, the lookup's target exists).
using { managed } from '@sap/cds/common';

entity bench_category : managed {
  key id                     : String(255);
      name                   : String @mandatory;
      bench_item_by_category : Association to many bench_item on bench_item_by_category.category = $self;
}

entity bench_item : managed {
  key id       : String(255);
      name     : String @mandatory;
      @assert.range
      status   : String enum { open; closed; archived };
      amount   : Double;
      category : Association to bench_category @assert.target;
}
