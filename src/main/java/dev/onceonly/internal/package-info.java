/** Implementation details. Not exported by the module; nothing here is public API. */
package dev.onceonly.internal;
