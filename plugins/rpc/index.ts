/** The JSON-RPC protocol: `POST {path}` (default `routes.rpc`, under the instance's basePath) with {op, object, args}. */
import type { Request, Response } from 'express';
import { definePlugin, isAnonymous, parsePluginOptions, type Kernel } from '../../kernel';
import { assertJsonBody, dataFileIds, routeOptions, type RouteOptions } from '../../kernel/protocol';
import { executeRpc, parseRpcRequest, RPC_OPS } from './mapping';
import { addRpcPaths } from './openapi';

export default definePlugin((options: RouteOptions = {}) => {
  const settings = parsePluginOptions('rpc', routeOptions, options);
  let kernel: Kernel;

  async function handle(req: Request, res: Response): Promise<void> {
    try {
      // A body that is not declared as JSON is never parsed: say so rather than "not an object".
      assertJsonBody(req.headers);
      const request = parseRpcRequest(req.body);
      const ctx = { ...kernel.http.context(req) };
      if (request.user && isAnonymous(ctx.user)) {
        if (kernel.config.security.allowBodyUser) ctx.user = request.user;
        else req.log.warn('JSON-RPC body user ignored: security.allowBodyUser is off');
      }
      if (request.ai_context) req.log.info({ ai_context: request.ai_context, op: request.op, object: request.object }, 'ai_context');
      res.json(await executeRpc(kernel.engine, request, ctx));
    } catch (err) {
      kernel.http.sendError(req, res, err);
    }
  }

  return {
    name: 'rpc',
    register(k) {
      kernel = k;
      const path = k.http.route('rpc', settings.path);
      k.hooks.capabilities.tap('rpc', (list) => [
        ...list,
        { plugin: 'rpc', protocol: 'json-rpc', routes: [`POST ${path}`], ops: [...RPC_OPS] },
      ]);
      k.hooks.openapi.tap('rpc', (doc) => addRpcPaths(doc, path, k.registry.objects(), k.config.limits, dataFileIds(k.registry)));
      k.hooks.routes.tap('rpc', (router) => {
        router.post(path, handle);
      });
    },
  };
});
