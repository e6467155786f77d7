/**
 * OpenTelemetry spans of the kernel, through @opentelemetry/api only (config `tracing`, off by
 * default): a server span per HTTP request (continuing the caller's `traceparent`), a span per
 * engine operation inside it, and the drivers' spans inside those. The application registers the
 * SDK and its exporter (docs/tracing.md); without one, the API records nothing.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { ObjectQLError } from './errors';

export const TRACER_NAME = 'objectql';

export function objectqlTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/**
 * The server span of each request, made current for everything the request runs. The request and
 * response emitters are bound to it, so work resumed by their events (the body read) stays inside.
 * `route` tells the pattern that answered, once the response is done.
 */
export function traceRequests(route: (req: Request) => string | undefined) {
  const tracer = objectqlTracer();
  return (req: Request, res: Response, next: NextFunction) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(
      req.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': req.path } },
      parent,
    );
    const active = trace.setSpan(parent, span);
    res.once('close', () => {
      const pattern = route(req);
      if (pattern) {
        span.updateName(`${req.method} ${pattern}`);
        span.setAttribute('http.route', pattern);
      }
      const status = res.writableFinished ? res.statusCode : 499;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, next);
  };
}

/** Runs `run` inside a span of its own, ended with its outcome (an error's code as the span's status message). */
export function inSpan<T>(name: string, attributes: Record<string, string>, run: () => Promise<T>): Promise<T> {
  return objectqlTracer().startActiveSpan(name, { attributes }, async (span: Span) => {
    try {
      return await run();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof ObjectQLError ? err.code : 'INTERNAL_ERROR' });
      if (!(err instanceof ObjectQLError)) span.recordException(err as Error);
      throw err;
    } finally {
      span.end();
    }
  });
}
