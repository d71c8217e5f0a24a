import type { CheckContext } from './check.js';
import { GET_PET_REMOVAL } from '../spec/facts.js';

/** Whether the run's date is past the announced removal, after which a server may have dropped the operation. */
export function getPetRemoved(today: string): boolean {
  return today >= GET_PET_REMOVAL;
}

/** Ends a check that needs GET /pets/{petId} to exist once its removal date has come. */
export function skipIfGetPetRemoved(ctx: CheckContext): void {
  if (getPetRemoved(ctx.config.today)) {
    ctx.skip(`GET /pets/{petId} was scheduled for removal on ${GET_PET_REMOVAL}; the run's date is ${ctx.config.today}`);
  }
}
