/** Replies shared by the routes that list and get actions (of the account, a VM or an image). */
import { listBody, notFound, type SandboxRequest } from '../http.js';
import { actionView, type World } from '../world.js';

/**
 * The platform's view of action `id`, optionally only when it acted on the given resource (as
 * `/v2/droplets/{id}/actions/{action}` requires); a 404 otherwise.
 */
export function actionReply(
  world: World,
  id: number,
  now: number,
  resource?: { type: string; id: number },
): { body: { action: ReturnType<typeof actionView> } } {
  const action = world.actions.find(
    (a) => a.id === id && (!resource || (a.resource_type === resource.type && a.resource_id === resource.id)),
  );
  if (!action) throw notFound();
  return { body: { action: actionView(world, action, now) } };
}

/** The actions of the account, or of one resource, newest first, as one page of the list. */
export function actionListReply(
  world: World,
  request: SandboxRequest,
  resource?: { type: string; id: number },
): { body: ReturnType<typeof listBody> } {
  const actions = world.actions
    .filter((a) => !resource || (a.resource_type === resource.type && a.resource_id === resource.id))
    .reverse()
    .map((a) => actionView(world, a, request.now));
  return { body: listBody('actions', actions, request) };
}
