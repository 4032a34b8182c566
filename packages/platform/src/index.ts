/**
 * The platform's object shapes and value lists, generated from the committed, description-free
 * subset of its OpenAPI description (scripts/generate.mjs): the family packages and the sandbox
 * build their types on these, so a shape is written once.
 */
import type { components, operations } from './schemas.generated.js';

export type { components, operations, paths } from './schemas.generated.js';

/** The component schemas by name: `Schemas['droplet']`, `Schemas['action']`... */
export type Schemas = components['schemas'];

/** An operation's JSON answer with the status (200 unless given): `ResponseBody<'droplets_list'>`. */
export type ResponseBody<
  Id extends keyof operations,
  Status extends number = 200,
> = operations[Id]['responses'] extends { [S in Status]: { content: { 'application/json': infer Body } } }
  ? Body
  : never;

/** An operation's JSON request body: `RequestBody<'droplets_create'>`. */
export type RequestBody<Id extends keyof operations> = operations[Id] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/**
 * `T` with the fields `K` always present: for answers where the description leaves a field out of
 * `required` but the platform always sends it (an action's `id`, say). Each use says why.
 */
export type Always<T, K extends keyof T> = T & { [P in K]-?: T[P] };

/**
 * A list answer of an operation, its array under `Key` always present (the description leaves it
 * out of `required`; the platform always sends it) and its `links` as `PageLinks`, of `Item` when given (a family's own name for
 * the item, with the fields the platform always sends), else of the described item.
 */
export type ListAnswer<
  Id extends keyof operations,
  Key extends keyof ResponseBody<Id>,
  Item = NonNullable<ResponseBody<Id>[Key]> extends readonly (infer Each)[] ? Each : never,
> = Omit<ResponseBody<Id>, Key | 'links'> & { [P in Key]: Item[] } & ('links' extends keyof ResponseBody<Id>
    ? { links: PageLinks }
    : unknown);

/**
 * A page's `links`: the description gives `pages` as an anyOf of the links forward and the links
 * backward, and a middle page sends both.
 */
export type PageLinks = { pages?: Schemas['forward_links'] & Schemas['backward_links'] };

/** One value of a generated value list: `EnumValue<typeof DROPLET_STATUS>` is `'new' | 'active' | ...`. */
export type EnumValue<List extends readonly string[]> = List[number];

// The value lists are generated (one per `enum` of the subset's schemas, named by where it is);
// naming each here again would be a second list to keep in step.
export * from './enums.generated.js';
/**
 * Every OAuth scope the platform's operations name (`droplet:read`, `droplet:create`...), sorted:
 * what a client may ask the platform's authorization server for.
 */
export { PLATFORM_SCOPES } from './scopes.generated.js';
