/**
 * The schema registry of a Kafka cluster, as a Confluent-compatible registry behaves: subjects
 * hold versions (from 1) of AVRO, JSON or PROTOBUF schemas; a schema gets one id in the registry,
 * whatever subject it is registered under; registering a subject's existing schema again returns it
 * without a new version; a new version must be compatible with the earlier ones at the subject's
 * compatibility level (else the registry's, BACKWARD by default), checked for AVRO records (fields
 * added, removed, retyped; defaults), JSON and PROTOBUF being taken as they come.
 *
 * Only Kafka clusters have a registry: on any other cluster every operation answers 404, the only
 * refusal the description declares for several of them (reads of a subject or a version).
 */

import type { StoredCluster } from '../families/databases.js';
import type {
  SchemaType,
  StoredSchema,
  StoredSchemaRegistry,
  StoredSubject,
} from '../families/databases-extra.js';
import {
  HttpError,
  listBody,
  notFound,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import type { World } from '../world.js';
import { base, findCluster, likeOf } from './databases.js';

export const COMPATIBILITY_LEVELS = [
  'NONE',
  'BACKWARD',
  'BACKWARD_TRANSITIVE',
  'FORWARD',
  'FORWARD_TRANSITIVE',
  'FULL',
  'FULL_TRANSITIVE',
] as const;
/** A registry's level until one is set: the Confluent registry's default. */
const DEFAULT_LEVEL = 'BACKWARD';
const SCHEMA_TYPES: readonly SchemaType[] = ['AVRO', 'JSON', 'PROTOBUF'];

const EMPTY: StoredSchemaRegistry = { schemas: [], subjects: [] };

/** The Kafka cluster's registry (for reading: an empty one when nothing was registered yet). */
function registryOf(
  world: World,
  req: SandboxRequest,
): { cluster: StoredCluster; registry: StoredSchemaRegistry } {
  const cluster = findCluster(world, req);
  if (likeOf(cluster) !== 'kafka') {
    throw notFound(
      `This cluster has no schema registry: only Kafka clusters have one (it is ${cluster.engine}).`,
    );
  }
  return { cluster, registry: cluster.schema_registry ?? EMPTY };
}

/** The registry, made on the first write. */
function writableRegistry(world: World, req: SandboxRequest): StoredSchemaRegistry {
  const { cluster } = registryOf(world, req);
  cluster.schema_registry ??= { schemas: [], subjects: [] };
  return cluster.schema_registry;
}

function subjectName(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (value.length > 255 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw unprocessable('subject_name must be at most 255 characters, without control characters');
  }
  return value;
}

function checkLevel(body: Record<string, unknown>): string {
  const level = body.compatibility_level;
  if (typeof level !== 'string' || !(COMPATIBILITY_LEVELS as readonly string[]).includes(level)) {
    throw unprocessable(`compatibility_level is required: one of ${COMPATIBILITY_LEVELS.join(', ')}`);
  }
  return level;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// Schemas: parsing and compatibility

const AVRO_PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

/** Checks an Avro schema's structure, collecting the names it defines; throws a message. */
function checkAvro(node: unknown, named: Set<string>, at: string): void {
  if (typeof node === 'string') {
    if (!AVRO_PRIMITIVES.has(node) && !named.has(node)) throw new Error(`${at}: unknown type ${node}`);
    return;
  }
  if (Array.isArray(node)) {
    if (node.length === 0) throw new Error(`${at}: a union needs at least one type`);
    node.forEach((branch, i) => {
      checkAvro(branch, named, `${at}[${i}]`);
    });
    return;
  }
  if (!isObject(node)) throw new Error(`${at}: a type is a name, an object or a union (array)`);
  const { type } = node;
  const name = () => {
    if (typeof node.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.]*$/.test(node.name)) {
      throw new Error(`${at}: a ${String(type)} needs a name`);
    }
    named.add(node.name);
  };
  switch (type) {
    case 'record':
    case 'error':
      name();
      if (!Array.isArray(node.fields)) throw new Error(`${at}: a record needs fields (an array)`);
      node.fields.forEach((field: unknown, i) => {
        if (!isObject(field) || typeof field.name !== 'string' || field.type === undefined) {
          throw new Error(`${at}.fields[${i}]: a field needs a name and a type`);
        }
        checkAvro(field.type, named, `${at}.fields[${i}]`);
      });
      return;
    case 'enum':
      name();
      if (!Array.isArray(node.symbols) || !node.symbols.every((s) => typeof s === 'string')) {
        throw new Error(`${at}: an enum needs symbols (an array of names)`);
      }
      return;
    case 'fixed':
      name();
      if (!Number.isInteger(node.size)) throw new Error(`${at}: a fixed needs a size`);
      return;
    case 'array':
      checkAvro(node.items, named, `${at}.items`);
      return;
    case 'map':
      checkAvro(node.values, named, `${at}.values`);
      return;
    default:
      checkAvro(type, named, `${at}.type`);
  }
}

/** The schema checked for its type, and its canonical form (the same schema, however it is spaced). */
function parseSchema(type: SchemaType, text: string): { canonical: string; parsed?: unknown } {
  if (type === 'PROTOBUF') {
    const open = text.split('{').length;
    if (!/\b(message|enum)\s+[A-Za-z_]\w*\s*\{/.test(text) || open !== text.split('}').length) {
      throw unprocessable('schema is not a valid PROTOBUF schema: it needs a message or enum definition');
    }
    return { canonical: text.replace(/\s+/g, ' ').trim() };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw unprocessable(`schema is not a valid ${type} schema: it is not JSON`);
  }
  if (type === 'AVRO') {
    try {
      checkAvro(parsed, new Set(), 'schema');
    } catch (error) {
      throw unprocessable(`schema is not a valid AVRO schema: ${(error as Error).message}`);
    }
  } else if (!isObject(parsed) && typeof parsed !== 'boolean') {
    throw unprocessable('schema is not a valid JSON schema: it must be an object or a boolean');
  }
  return { canonical: JSON.stringify(parsed), parsed };
}

const PROMOTIONS: Record<string, string[]> = {
  int: ['long', 'float', 'double'],
  long: ['float', 'double'],
  float: ['double'],
  string: ['bytes'],
  bytes: ['string'],
};

/** Why data written with `writer` cannot be read with `reader` (Avro's resolution rules), if so. */
function avroUnreadable(writer: unknown, reader: unknown): string | undefined {
  const same = JSON.stringify(writer) === JSON.stringify(reader);
  if (same) return undefined;
  if (typeof writer === 'string' && typeof reader === 'string') {
    return PROMOTIONS[writer]?.includes(reader) ? undefined : `${writer} cannot be read as ${reader}`;
  }
  if (Array.isArray(reader)) {
    // Each branch written must be readable by some branch of the reader's union.
    const branches = Array.isArray(writer) ? writer : [writer];
    const lost = branches.find((branch) => reader.every((r) => avroUnreadable(branch, r) !== undefined));
    return lost === undefined ? undefined : `the union no longer holds ${JSON.stringify(lost)}`;
  }
  if (isObject(writer) && isObject(reader) && writer.type === 'record' && reader.type === 'record') {
    const written = new Map(
      (writer.fields as Record<string, unknown>[]).map((field) => [field.name as string, field]),
    );
    for (const field of reader.fields as Record<string, unknown>[]) {
      const old = written.get(field.name as string);
      if (!old) {
        if (!('default' in field))
          return `field ${String(field.name)} has no default, and data without it cannot be read`;
        continue;
      }
      const why = avroUnreadable(old.type, field.type);
      if (why) return `field ${String(field.name)}: ${why}`;
    }
    return undefined;
  }
  return 'the schema changed in a way its readers cannot follow';
}

/** Refuses a new schema that breaks the level against the subject's earlier versions. */
function checkCompatible(
  registry: StoredSchemaRegistry,
  subject: StoredSubject,
  type: SchemaType,
  parsed: unknown,
): void {
  const level = subject.compatibility ?? registry.compatibility ?? DEFAULT_LEVEL;
  if (level === 'NONE' || subject.versions.length === 0) return;
  const against = level.endsWith('_TRANSITIVE') ? subject.versions : subject.versions.slice(-1);
  for (const version of against) {
    const earlier = registry.schemas.find((s) => s.id === version.schema_id) as StoredSchema;
    let why: string | undefined;
    if (earlier.schema_type !== type)
      why = `it is ${type}; version ${version.version} is ${earlier.schema_type}`;
    else if (type === 'AVRO') {
      const old = JSON.parse(earlier.schema);
      const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
      const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
      why =
        (backward ? avroUnreadable(old, parsed) : undefined) ??
        (forward ? avroUnreadable(parsed, old) : undefined);
    }
    if (why) {
      // The registry's own answer to an incompatible schema: 409.
      throw new HttpError(
        409,
        'conflict',
        `Schema being registered is incompatible with version ${version.version} of subject ${subject.name} (${level}): ${why}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Views

function schemaView(
  registry: StoredSchemaRegistry,
  subject: StoredSubject,
  version: StoredSubject['versions'][number],
) {
  const schema = registry.schemas.find((s) => s.id === version.schema_id) as StoredSchema;
  return {
    schema_id: schema.id,
    subject_name: subject.name,
    schema_type: schema.schema_type,
    schema: schema.schema,
  };
}

function findSubject(registry: StoredSchemaRegistry, name: string): StoredSubject {
  const subject = registry.subjects.find((s) => s.name === name && s.versions.length > 0);
  if (!subject) throw notFound(`Subject ${name} not found.`);
  return subject;
}

export const databasesSchemaRoutes: Route[] = [
  {
    method: 'GET',
    path: `${base}/schema-registry`,
    handler: (req, world) => {
      const { registry } = registryOf(world, req);
      const subjects = registry.subjects
        .filter((s) => s.versions.length > 0)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const body = listBody('subjects', subjects, req);
      return {
        body: {
          ...body,
          subjects: (body.subjects as StoredSubject[]).map((s) =>
            schemaView(registry, s, s.versions[s.versions.length - 1] as StoredSubject['versions'][number]),
          ),
        },
      };
    },
  },
  {
    method: 'POST',
    path: `${base}/schema-registry`,
    handler: (req, world) => {
      const registry = writableRegistry(world, req);
      const name = subjectName(requireString(req.body, 'subject_name'));
      const type = requireString(req.body, 'schema_type') as SchemaType;
      if (!SCHEMA_TYPES.includes(type))
        throw unprocessable(`schema_type must be one of ${SCHEMA_TYPES.join(', ')}`);
      const text = requireString(req.body, 'schema');
      const { canonical, parsed } = parseSchema(type, text);
      const canonicalOf = (s: StoredSchema) =>
        s.schema_type === 'PROTOBUF'
          ? s.schema.replace(/\s+/g, ' ').trim()
          : JSON.stringify(JSON.parse(s.schema));
      let schema = registry.schemas.find((s) => s.schema_type === type && canonicalOf(s) === canonical);
      let subject = registry.subjects.find((s) => s.name === name);
      const registered = subject?.versions.find((v) => v.schema_id === schema?.id);
      if (subject && registered) {
        return { status: 201, body: schemaView(registry, subject, registered) };
      }
      if (subject) checkCompatible(registry, subject, type, parsed);
      if (!schema) {
        schema = {
          id: Math.max(0, ...registry.schemas.map((s) => s.id)) + 1,
          schema_type: type,
          schema: text,
        };
        registry.schemas.push(schema);
      }
      if (!subject) {
        subject = { name, versions: [] };
        registry.subjects.push(subject);
      }
      const version = {
        version: (subject.versions.at(-1)?.version ?? 0) + 1,
        schema_id: schema.id,
        created_ms: req.now,
      };
      subject.versions.push(version);
      return { status: 201, body: schemaView(registry, subject, version) };
    },
  },
  {
    method: 'GET',
    path: `${base}/schema-registry/config`,
    handler: (req, world) => {
      const { registry } = registryOf(world, req);
      return { body: { compatibility_level: registry.compatibility ?? DEFAULT_LEVEL } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/schema-registry/config`,
    handler: (req, world) => {
      const level = checkLevel(req.body);
      const registry = writableRegistry(world, req);
      registry.compatibility = level;
      return { body: { compatibility_level: level } };
    },
  },
  {
    method: 'GET',
    path: `${base}/schema-registry/config/{subject}`,
    handler: (req, world) => {
      const { registry } = registryOf(world, req);
      const name = req.params.subject ?? '';
      const subject = registry.subjects.find((s) => s.name === name);
      if (!subject) throw notFound(`Subject ${name} not found.`);
      // A subject without a level of its own follows the registry's: the level in effect is shown.
      return {
        body: {
          subject_name: subject.name,
          compatibility_level: subject.compatibility ?? registry.compatibility ?? DEFAULT_LEVEL,
        },
      };
    },
  },
  {
    method: 'PUT',
    path: `${base}/schema-registry/config/{subject}`,
    handler: (req, world) => {
      const level = checkLevel(req.body);
      const registry = writableRegistry(world, req);
      const name = subjectName(req.params.subject ?? '');
      // As in the Confluent registry, a level may be set for a subject before its first schema.
      let subject = registry.subjects.find((s) => s.name === name);
      if (!subject) {
        subject = { name, versions: [] };
        registry.subjects.push(subject);
      }
      subject.compatibility = level;
      return { body: { subject_name: name, compatibility_level: level } };
    },
  },
  {
    method: 'GET',
    path: `${base}/schema-registry/{subject}`,
    handler: (req, world) => {
      const { registry } = registryOf(world, req);
      const subject = findSubject(registry, req.params.subject ?? '');
      const latest = subject.versions[subject.versions.length - 1] as StoredSubject['versions'][number];
      return { body: { ...schemaView(registry, subject, latest), version: String(latest.version) } };
    },
  },
  {
    method: 'GET',
    path: `${base}/schema-registry/{subject}/versions/{version}`,
    handler: (req, world) => {
      const { registry } = registryOf(world, req);
      const subject = findSubject(registry, req.params.subject ?? '');
      const asked = req.params.version ?? '';
      // A version number, or `latest`, as the Confluent registry takes them.
      const version =
        asked === 'latest'
          ? subject.versions[subject.versions.length - 1]
          : /^[1-9]\d{0,9}$/.test(asked)
            ? subject.versions.find((v) => v.version === Number(asked))
            : undefined;
      if (!version) throw notFound(`Version ${asked} of subject ${subject.name} not found.`);
      return { body: { ...schemaView(registry, subject, version), version: String(version.version) } };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/schema-registry/{subject}`,
    handler: (req, world) => {
      const registry = writableRegistry(world, req);
      const subject = findSubject(registry, req.params.subject ?? '');
      // The subject goes with its versions and its level; its schemas keep their ids in the registry.
      registry.subjects = registry.subjects.filter((s) => s.name !== subject.name);
      return { status: 204 };
    },
  },
];
