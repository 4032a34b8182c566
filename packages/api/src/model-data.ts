/**
 * The shape of the generated operation model (operations.generated.ts) and of its validation
 * schemas (validation.generated.ts), both made by scripts/generate.mjs from the committed,
 * description-free subset of the platform's OpenAPI description and the reviewed table
 * scripts/rules.mjs.
 */

/** What a request does to a resource it names. */
export type Role = 'target' | 'join' | 'source' | 'use';

/** A place where a request names a resource. */
export interface Reference {
  in: 'path' | 'query' | 'body';
  /**
   * The parameter's name, or the path to the body field: `droplet_template.vpc_uuid`, `volumes`
   * (each item of a list), `resources[].urn` (`[]` steps into a list, `{}` into a map's values).
   */
  at: string;
  /** The kind of resource (`droplet`, `volume`...): a key of `ModelData.kinds` when it can be read. */
  kind: string;
  /**
   * What the request does to it: `target` changes it; `join` makes something a member of it (a
   * project, a VPC, a tag); `source` copies its data into something new; `use` points at it.
   */
  role: Role;
  /**
   * How the value names it: by id (the default), `name`, `urn` (`do:droplet:7`), `typed` (a
   * `{ resource_id, resource_type }` object), `members` (a tag: every resource carrying it).
   */
  by?: 'name' | 'urn' | 'typed' | 'members';
  /** A sibling field that narrows a name (a volume's `region`). */
  within?: string;
  /** For a path parameter: the path up to it, as a template, when a GET of it exists. */
  read?: string;
}

/** A container's delete: where its members are read, so that each is checked first. */
export interface Container {
  /** Where its members are listed, as a template filled from the request's path. */
  read?: string;
  /** Lists read with the container's name as `tag_name` (a tag's members). */
  tagged?: string[];
  /** The answer's list of members, each holding a URN in `urn`. */
  list?: string;
  urn?: string;
  /** An answer listing resources by kind: answer key -> kind. */
  associated?: Record<string, string>;
}

export interface OperationData {
  /** The description's operationId, such as `droplets_create`. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path template, such as `/v2/droplets/{droplet_id}`. */
  path: string;
  tags: string[];
  /** The token scopes: any one set, every scope of it. */
  scopes: string[][];
  params?: { in: 'path' | 'query'; name: string; required?: true }[];
  /** Whether it takes a JSON body, and must. */
  body?: 'required' | 'optional';
  /** Body types other than JSON it takes. */
  contentTypes?: string[];
  /** Where it is served, when not at the API (the inference endpoints). */
  host?: string;
  /** The action types its body takes (`type`). */
  types?: string[];
  /** Every place its request names a resource. */
  refs?: Reference[];
  /** It destroys or replaces: always (`true`), or for these action types. */
  destroys?: true | string[];
  /** It deletes a container whose members are read first. */
  members?: Container;
}

/** A kind of resource: where one is read by id (`{id}`), its URN types, its tag resource types. */
export interface KindData {
  read?: string;
  urn?: string[];
  types?: string[];
  /** Its list, which takes `name` (and `region`) to find one by name. */
  byName?: string;
}

export interface ModelData {
  /** The API description's version the model was made from. */
  version: string;
  operations: OperationData[];
  kinds: Record<string, KindData>;
}

/** A JSON schema in OpenAPI 3.0's flavour (`nullable`, `discriminator`). */
export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface ValidationData {
  /** Per operation: its path and query parameters' schemas by name, and its body's schema. */
  operations: Record<
    string,
    { path?: Record<string, JsonSchema>; query?: Record<string, JsonSchema>; body?: JsonSchema }
  >;
  /** The component schemas the above reach (`#/components/schemas/NAME`). */
  components: { schemas: Record<string, JsonSchema> };
}
