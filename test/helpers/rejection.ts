import { expect } from 'chai';
import { ObjectQLError } from '../../kernel';

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

/** As rejection, asserting the error is an ObjectQLError. */
export async function objectqlRejection(promise: Promise<unknown>): Promise<ObjectQLError> {
  const err = await rejection(promise);
  expect(err).to.be.instanceOf(ObjectQLError);
  return err as ObjectQLError;
}
