package dev.onceonly.spring.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The shipments. */
public interface Shipments extends JpaRepository<Shipment, String> {}
