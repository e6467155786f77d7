/**
 * Helpers of the OpenAPI tests: which protocol plugins exist, route ↔ path matching, and the
 * semantic checks an OpenAPI 3.0 document needs beyond its JSON schema (swagger-parser checks
 * only the schema for 3.x documents: path parameters, operation ids and `required` lists are
 * left to us).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';

const ROOT = resolve(__dirname, '../../..');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** rpc and openapi, plus rest, metadata and files when those plugins exist in this tree. */
export function protocolPlugins(): Record<string, boolean | Record<string, unknown>> {
  return {
    rpc: true,
    openapi: true,
    ...(existsSync(resolve(ROOT, 'plugins/rest/index.ts')) ? { rest: true } : {}),
    ...(existsSync(resolve(ROOT, 'plugins/metadata-api/index.ts')) ? { 'metadata-api': true } : {}),
    ...(existsSync(resolve(ROOT, 'plugins/files/index.ts')) ? { files: { storage: { type: 'memory' } } } : {}),
  };
}

export const hasRest = () => 'rest' in protocolPlugins();
export const hasMetadata = () => 'metadata-api' in protocolPlugins();

/** `/api/data/:object/:id` and `/api/data/{object}/{id}` → `/api/data/{}/{}`. */
export function normalisePath(path: string): string {
  return path.replace(/:[A-Za-z_]\w*|\{[^}/]+\}/g, '{}').replace(/(.)\/+$/, '$1');
}

/**
 * Whether a capability route ('POST /api/objectql', 'GET /api/data/:object') is in the document:
 * a path whose segments match (a parameter on either side matches any segment) with that method.
 * Also accepts 'GET|PUT /x' and a route without a method (any method).
 */
export function routeInDocument(doc: any, route: string): boolean {
  const m = /^(?:([A-Za-z|,]+)\s+)?(\S+)$/.exec(route.trim());
  if (!m) return false;
  const methods = m[1] ? m[1].toLowerCase().split(/[|,]/) : [...METHODS];
  const want = normalisePath(m[2]).split('/');
  return Object.entries<Record<string, unknown>>(doc.paths ?? {}).some(([path, item]) => {
    const have = normalisePath(path).split('/');
    if (have.length !== want.length) return false;
    const same = have.every((seg, i) => seg === want[i] || seg === '{}' || want[i] === '{}');
    return same && methods.some((method) => item[method] !== undefined);
  });
}

/** Every operation of the document as [path, method, operation]. */
export function operations(doc: any): [string, string, any][] {
  const out: [string, string, any][] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) if (item[method]) out.push([path, method, item[method]]);
  }
  return out;
}

/** The checks of the OpenAPI 3.0.3 text that its JSON schema cannot express. */
export function checkSemantics(doc: any): void {
  const ids = new Map<string, string>();
  for (const [path, method, op] of operations(doc)) {
    const where = `${method.toUpperCase()} ${path}`;
    if (op.operationId) {
      expect(ids.has(op.operationId), `operationId '${op.operationId}' of ${where} is also used by ${ids.get(op.operationId)}`).to.equal(
        false,
      );
      ids.set(op.operationId, where);
    }
    const params = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].map((p: any) => resolveRef(doc, p));
    for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1])) {
      const p = params.find((q: any) => q.in === 'path' && q.name === name);
      expect(p, `${where}: path parameter '${name}' is not declared`).to.not.equal(undefined);
      expect(p.required, `${where}: path parameter '${name}' must be required`).to.equal(true);
    }
    expect(Object.keys(op.responses ?? {}).length, `${where} has no responses`).to.be.greaterThan(0);
  }
  walkSchemas(doc, (schema, where) => {
    if (schema.nullable !== undefined) expect(schema.type, `${where}: nullable without a type has no effect in 3.0.3`).to.be.a('string');
    if (schema.nullable === true && Array.isArray(schema.enum))
      expect(schema.enum, `${where}: a nullable enum must list null`).to.include(null);
    if (Array.isArray(schema.required) && schema.type === 'object' && !schema.additionalProperties) {
      for (const name of schema.required)
        expect(schema.properties ?? {}, `${where}: required '${name}' is not a property`).to.have.property(name);
    }
    if (schema.$ref) expect(Object.keys(schema), `${where}: siblings of $ref are ignored in 3.0`).to.deep.equal(['$ref']);
  });
}

function resolveRef(doc: any, value: any): any {
  if (!value?.$ref) return value;
  return value.$ref
    .slice(2)
    .split('/')
    .reduce((node: any, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Calls `visit` on every schema object of the document (components and inline). */
export function walkSchemas(doc: any, visit: (schema: any, where: string) => void): void {
  const seen = new Set<unknown>();
  const schema = (s: any, where: string): void => {
    if (!s || typeof s !== 'object' || seen.has(s)) return;
    seen.add(s);
    visit(s, where);
    for (const key of ['items', 'not', 'additionalProperties']) schema(s[key], `${where}.${key}`);
    for (const key of ['allOf', 'oneOf', 'anyOf']) (s[key] ?? []).forEach((x: any, i: number) => schema(x, `${where}.${key}[${i}]`));
    for (const [name, p] of Object.entries(s.properties ?? {})) schema(p, `${where}.properties.${name}`);
  };
  const content = (c: any, where: string) =>
    Object.entries<any>(c ?? {}).forEach(([type, media]) => schema(media.schema, `${where}.${type}`));
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) schema(s, `#/components/schemas/${name}`);
  for (const [path, method, op] of operations(doc)) {
    const where = `${method.toUpperCase()} ${path}`;
    (op.parameters ?? []).forEach((p: any) => schema(p.schema, `${where} parameter ${p.name}`));
    content(op.requestBody?.content, `${where} body`);
    for (const [status, r] of Object.entries<any>(op.responses ?? {})) content(r.content, `${where} ${status}`);
  }
}
