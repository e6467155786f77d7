/** The JSON-RPC protocol: `POST {routes.rpc}` with {op, object, args}. */
import { definePlugin, isAnonymous, ObjectQLError, sendError, type Kernel } from '../../kernel';
import { executeRpc, parseRpcRequest, RPC_OPS } from './mapping';
import { addRpcPaths } from './openapi';

export default definePlugin(() => {
  let kernel: Kernel;
  return {
    name: 'rpc',
    register(k) {
      kernel = k;
      const path = k.config.routes.rpc;
      k.hooks.capabilities.tap('rpc', (list) => [
        ...list,
        { plugin: 'rpc', protocol: 'json-rpc', routes: [`POST ${path}`], ops: [...RPC_OPS] },
      ]);
      k.hooks.openapi.tap('rpc', (doc) => addRpcPaths(doc, path, kernel.registry.objects(), kernel.config.limits));
      k.hooks.routes.tapPromise('rpc', async (router) => {
        router.post(path, async (req, res) => {
          try {
            // A body that is not declared as JSON is never parsed: say so rather than "not an object".
            if (req.is(['application/json', 'application/*+json']) === false) {
              throw new ObjectQLError(
                'INVALID_REQUEST',
                `Content-Type must be application/json, got '${req.get('content-type') ?? 'none'}'`,
              );
            }
            const request = parseRpcRequest(req.body);
            const ctx = { ...kernel.http.context(req) };
            if (request.user && isAnonymous(ctx.user)) {
              if (kernel.config.security.allowBodyUser) ctx.user = request.user;
              else req.log.warn('JSON-RPC body user ignored: security.allowBodyUser is off');
            }
            if (request.ai_context) req.log.info({ ai_context: request.ai_context, op: request.op, object: request.object }, 'ai_context');
            res.json(await executeRpc(kernel.engine, request, ctx));
          } catch (err) {
            sendError(req, res, err);
          }
        });
      });
    },
  };
});
