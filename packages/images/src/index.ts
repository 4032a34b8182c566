/**
 * @cloudcall/images: list, get, create from URL, rename, delete, transfer, convert, sizes.
 * Its tools arrive in a later release; the family is registered now so the apps compose it.
 */
import type { AnyTool, ToolFamily } from '@cloudcall/core';

export const imagesTools: readonly AnyTool[] = [];

export const imagesFamily: ToolFamily = {
  name: 'images',
  title: 'Images and sizes',
  description: 'Images: list, get, create from URL, rename, delete, transfer, convert; VM sizes.',
  tools: imagesTools,
};
