/**
 * The families, each loaded when first asked for: a program that runs one tool (the CLI) loads
 * that tool's family, not all five (their zod schemas and request tables are most of what a
 * command loads). The same families as `families` in index.ts, in the same order: lazy.test.ts
 * checks that the two lists agree.
 */
import type { FamilyName, ToolFamily } from '@cloudcall/core';

const LOADERS: Record<FamilyName, () => Promise<ToolFamily>> = {
  account: () => import('@cloudcall/account').then((module) => module.accountFamily),
  databases: () => import('@cloudcall/databases').then((module) => module.databasesFamily),
  networking: () => import('@cloudcall/networking').then((module) => module.networkingFamily),
  vms: () => import('@cloudcall/vms').then((module) => module.vmsFamily),
  images: () => import('@cloudcall/images').then((module) => module.imagesFamily),
  kubernetes: () => import('@cloudcall/kubernetes').then((module) => module.kubernetesFamily),
  registry: () => import('@cloudcall/registry').then((module) => module.registryFamily),
  apps: () => import('@cloudcall/apps').then((module) => module.appsFamily),
  monitoring: () => import('@cloudcall/monitoring').then((module) => module.monitoringFamily),
  spaces: () => import('@cloudcall/spaces').then((module) => module.spacesFamily),
  api: () => import('@cloudcall/api').then((module) => module.apiFamily),
};

/** The family names, in the order of `families`. */
export const FAMILY_NAMES = Object.keys(LOADERS) as FamilyName[];

const loaded = new Map<FamilyName, Promise<ToolFamily>>();

/** One family, loaded once. */
export function loadFamily(name: FamilyName): Promise<ToolFamily> {
  let family = loaded.get(name);
  if (!family) {
    family = LOADERS[name]();
    loaded.set(name, family);
  }
  return family;
}

/** Several families (all by default), in the order of `families`. */
export function loadFamilies(names: readonly FamilyName[] = FAMILY_NAMES): Promise<ToolFamily[]> {
  return Promise.all(FAMILY_NAMES.filter((name) => names.includes(name)).map(loadFamily));
}
