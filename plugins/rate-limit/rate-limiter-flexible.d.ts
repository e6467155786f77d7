/**
 * The two rate-limiter-flexible classes the memory store needs, by their own files: the package's
 * index loads every backend it has (Redis, Mongo, MySQL, Postgres, DynamoDB, etcd, cluster, ...).
 * The types are the package's own.
 */
declare module 'rate-limiter-flexible/lib/RateLimiterMemory' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';
  export = RateLimiterMemory;
}

declare module 'rate-limiter-flexible/lib/RateLimiterRes' {
  import { RateLimiterRes } from 'rate-limiter-flexible';
  export = RateLimiterRes;
}
