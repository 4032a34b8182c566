/** The schemas requests are checked with (validation.generated.ts), parsed the first time they are read. */
import type { ValidationData } from './model-data.js';
import { VALIDATION_TEXT } from './validation.generated.js';

let validation: ValidationData | undefined;

export function validationData(): ValidationData {
  validation ??= JSON.parse(VALIDATION_TEXT) as ValidationData;
  return validation;
}
