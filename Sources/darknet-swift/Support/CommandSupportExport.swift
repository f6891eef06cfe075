// CommandSupport is visible in every file of this module, imported or not: Summary.swift
// reads ModelFiles and report without importing it.
@_exported import CommandSupport
