package dev.ballast.web;

/**
 * Whether the caller of the request being answered may write a service (register in it):
 * what the security module decides, for the modules that must ask without depending on
 * it. A check's whole output, what its target answered, is shown only to such a caller.
 * Ask on the request's thread: an answer may be made on another.
 */
public interface WriteScope {

	boolean mayWrite(String service);

}
