/**
 * The sandbox world: everything an account holds, as plain JSON so it can be saved to a file.
 * Progress (an action going from in-progress to completed) is derived from timestamps when read,
 * never advanced by timers, so it holds across processes and restarts.
 */
import { iso } from './http.js';
import { seedAccount } from './seed/account.js';
import { images, regions, sizes } from './seed/catalog.js';
/** Bumped when the saved shape changes incompatibly. */
export const WORLD_VERSION = 1;
/** Numeric ids start where the platform's do, so they look real. */
const FIRST_IDS = {
    sshKey: 41_000_001,
    action: 2_140_000_001,
    droplet: 480_000_001,
    image: 171_000_001,
    record: 370_000_001,
};
export function seedWorld(now = Date.now()) {
    const account = seedAccount(new Date(now));
    return {
        version: WORLD_VERSION,
        clockOffsetMs: 0,
        nextId: { ...FIRST_IDS },
        ...account,
        regions: structuredClone(regions),
        sizes: structuredClone(sizes),
        images: structuredClone(images),
        sshKeys: [],
        actions: [],
    };
}
/** Fills in what a world saved by an older sandbox lacks. */
export function upgradeWorld(world) {
    if (world.version !== WORLD_VERSION) {
        throw new Error(`sandbox state has version ${world.version}; this sandbox reads version ${WORLD_VERSION}`);
    }
    const fresh = seedWorld();
    for (const key of Object.keys(fresh)) {
        if (world[key] === undefined)
            world[key] = fresh[key];
    }
    world.nextId = { ...FIRST_IDS, ...world.nextId };
    return world;
}
/** Hands out the next numeric id of a kind. */
export function nextId(world, kind) {
    const id = world.nextId[kind] ?? FIRST_IDS[kind] ?? 1;
    world.nextId[kind] = id + 1;
    return id;
}
export function regionOf(world, slug) {
    return slug ? world.regions.find((region) => region.slug === slug) : undefined;
}
/** Records a new action and returns it as the platform shows it. */
export function startAction(world, now, init) {
    const action = { id: nextId(world, 'action'), started_ms: now, duration_ms: 3_000, ...init };
    world.actions.push(action);
    return action;
}
/** The platform's view of an action at time `now`. */
export function actionView(world, action, now) {
    const done = now >= action.started_ms + action.duration_ms;
    const region = regionOf(world, action.region_slug);
    return {
        id: action.id,
        status: done ? (action.errored ? 'errored' : 'completed') : 'in-progress',
        type: action.type,
        started_at: iso(action.started_ms),
        completed_at: done ? iso(action.started_ms + action.duration_ms) : null,
        resource_id: action.resource_id,
        resource_type: action.resource_type,
        ...(region ? { region } : {}),
        region_slug: action.region_slug,
    };
}
